// Package config is toolbus's TOML configuration: the defaults that let
// `toolbus relay` run with no file at all, loading with unknown keys refused,
// and validation whose errors name the offending key.
package config

// Config is the whole toolbus configuration file.
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
}

// Info is what the NIP-11 document says about the relay.
type Info struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	Contact     string `toml:"contact"`
}

// Workspace says who may write and read.
type Workspace struct {
	// Mode is "members" (only members write; only authenticated members read
	// member events) or "open" (anyone writes and reads).
	Mode string `toml:"mode"`
	// Members are npub or hex public keys allowed to write and read.
	Members []string `toml:"members"`
	// Admins are members who may also manage membership over NIP-86.
	Admins []string `toml:"admins"`
}

// Limits bound what one client may ask of the relay.
type Limits struct {
	MaxMessageBytes     int     `toml:"max_message_bytes"`
	MaxSubscriptions    int     `toml:"max_subscriptions"`
	MaxFilters          int     `toml:"max_filters"`
	MaxLimit            int     `toml:"max_limit"`
	MaxEventTags        int     `toml:"max_event_tags"`
	MaxContentBytes     int     `toml:"max_content_bytes"`
	MaxFilterValues     int     `toml:"max_filter_values"`
	EventsPerSecond     float64 `toml:"events_per_second"`
	EventsBurst         int     `toml:"events_burst"`
	IPEventsPerSecond   float64 `toml:"ip_events_per_second"`
	IPEventsBurst       int     `toml:"ip_events_burst"`
	MaxConnectionsPerIP int     `toml:"max_connections_per_ip"`
}

// Storage selects the event store.
type Storage struct {
	// Backend is "lmdb" (default, embedded).
	Backend string `toml:"backend"`
}
