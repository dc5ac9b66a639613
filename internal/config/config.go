// Package config is toolbus's TOML configuration: the defaults that let
// `toolbus relay` run with no file at all, loading with unknown keys refused,
// and validation whose errors name the offending key.
//
// The usual flow is Load(path). A command with flags that override the file
// uses Read(path), then Config.ApplyFlags, then Config.Validate, so that a
// bad value which a flag replaces is never reported.
package config

// Config is the whole toolbus configuration file.
//
// Unknown keys and sections are refused when loading (a typo must not
// silently fall back to a default), so every new section — such as the
// planned [tool_bus] and [git] — must be added here, to Default, to
// Validate and to config.example.toml before a file may use it.
type Config struct {
	// Listen is the host:port the relay's HTTP and websocket server binds.
	Listen string `toml:"listen"`
	// PublicURL is the URL clients use to reach the relay (http(s):// or
	// ws(s)://). It is the only source of the NIP-42 `relay` tag and NIP-98
	// `u` checks. Empty means derived from Listen.
	PublicURL string `toml:"public_url"`
	// TrustProxy lets X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host
	// set the client IP (and the public URL when PublicURL is empty).
	TrustProxy bool `toml:"trust_proxy"`
	// DataDir holds the event store, the relay key and membership state.
	DataDir string `toml:"data_dir"`
	// KeyFile is the relay's own key (0600). Empty means DataDir/relay.key,
	// generated on first start.
	KeyFile string `toml:"key_file"`
	// LogFormat is "text" or "json".
	LogFormat string `toml:"log_format"`
	// LogLevel is "debug", "info", "warn" or "error".
	LogLevel string `toml:"log_level"`

	Info      Info      `toml:"info"`
	Workspace Workspace `toml:"workspace"`
	Limits    Limits    `toml:"limits"`
	Storage   Storage   `toml:"storage"`
	ToolBus   ToolBus   `toml:"tool_bus"`
	Git       Git       `toml:"git"`
}

// Info is what the NIP-11 document says about the relay.
type Info struct {
	// Name is the relay's short human-readable name.
	Name string `toml:"name"`
	// Description is a one-line summary shown by clients.
	Description string `toml:"description"`
	// Contact is an optional admin contact (URI or email); empty omits it.
	Contact string `toml:"contact"`
}

// Workspace says who may write and read.
type Workspace struct {
	// Mode is "members" (only members write; only authenticated members read
	// member events) or "open" (anyone writes and reads).
	Mode string `toml:"mode"`
	// Members are npub or hex public keys allowed to write and read.
	Members []string `toml:"members"`
	// Admins are members who may also manage membership over NIP-86. An
	// admin need not be listed in Members too: see Config.MemberKeys.
	Admins []string `toml:"admins"`
}

// Limits bound what one client may ask of the relay. Every limit must be
// positive: there is deliberately no "0 means unlimited", so a forgotten
// value can never switch a protection off.
type Limits struct {
	// MaxMessageBytes caps one websocket message, whatever it carries.
	MaxMessageBytes int `toml:"max_message_bytes"`
	// MaxSubscriptions caps open REQ subscriptions per connection.
	MaxSubscriptions int `toml:"max_subscriptions"`
	// MaxFilters caps filters in one REQ or COUNT.
	MaxFilters int `toml:"max_filters"`
	// MaxLimit caps a filter's `limit`; larger requests are clamped.
	MaxLimit int `toml:"max_limit"`
	// MaxEventTags caps the tags of one event.
	MaxEventTags int `toml:"max_event_tags"`
	// MaxContentBytes caps the content of one event.
	MaxContentBytes int `toml:"max_content_bytes"`
	// MaxFilterValues caps the ids, authors, and values of each tag in one
	// filter, so a single filter cannot become an unbounded index scan.
	MaxFilterValues int `toml:"max_filter_values"`
	// EventsPerSecond is the sustained EVENT rate per author pubkey.
	EventsPerSecond float64 `toml:"events_per_second"`
	// EventsBurst is how many EVENTs one pubkey may send at once.
	EventsBurst int `toml:"events_burst"`
	// IPEventsPerSecond is the sustained EVENT rate per client IP, which
	// bounds an attacker who signs with many throwaway keys.
	IPEventsPerSecond float64 `toml:"ip_events_per_second"`
	// IPEventsBurst is how many EVENTs one IP may send at once.
	IPEventsBurst int `toml:"ip_events_burst"`
	// MaxConnectionsPerIP caps simultaneous websocket connections per IP.
	MaxConnectionsPerIP int `toml:"max_connections_per_ip"`
	// MinFreeDiskMB refuses writes (OK false "error: disk is full") while
	// data_dir's filesystem has less free space than this, so the store
	// never runs out of room mid-transaction. Git pushes share the disk:
	// they are refused (HTTP 507) when there is no room above this, and a
	// pack may use at most half of that room (receive.maxInputSize).
	MinFreeDiskMB int `toml:"min_free_disk_mb"`
}

// Storage selects the event store.
type Storage struct {
	// Backend is "lmdb" (default, embedded).
	Backend string `toml:"backend"`
}

// ToolBus is the relay side of the tool bus: how it treats tool calls and
// results (kinds 25910, 1059, 21059), which it relays live, never stores in
// the main store, keeps briefly for reconnecting callers, and audits.
type ToolBus struct {
	// AnonymousWraps accepts gift-wrapped tool traffic from connections that
	// did not authenticate, as long as the wrap is addressed to a member:
	// stock ContextVM clients do not do NIP-42. Rate-limited per IP.
	AnonymousWraps bool `toml:"anonymous_wraps"`
	// MailboxSeconds is how long bus events addressed to a pubkey are kept
	// for replay to a subscription that (re)connects or authenticates late.
	MailboxSeconds int `toml:"mailbox_seconds"`
	// MailboxPerRecipient bounds the events kept per recipient.
	MailboxPerRecipient int `toml:"mailbox_per_recipient"`
	// Audit appends every bus event (gift wraps: envelope only) to an audit
	// log under data_dir/audit, queryable by admins over NIP-86.
	Audit bool `toml:"audit"`
	// AuditRetentionDays is how many days of audit log are kept.
	AuditRetentionDays int `toml:"audit_retention_days"`
}

// Git configures git hosting at /git/<owner>/<repo>.git on the relay.
type Git struct {
	// Enabled serves git smart HTTP beside the relay.
	Enabled bool `toml:"enabled"`
	// ProtectedBranches refuse force-pushes and deletion (path.Match
	// patterns, e.g. "release/*"). An empty list protects nothing.
	ProtectedBranches []string `toml:"protected_branches"`
	// RequireSignedCommits refuses pushes that add a commit without a valid
	// NIP-GS signature by a workspace member.
	RequireSignedCommits bool `toml:"require_signed_commits"`
	// MaxRequestBytes caps one git request body (a push's pack).
	MaxRequestBytes int64 `toml:"max_request_bytes"`
}
