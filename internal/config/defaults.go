package config

// Default returns the configuration used when there is no file, and the base
// a file is decoded over, so a file only needs the keys it changes. The
// defaults are safe on a laptop: loopback only, members-only workspace.
func Default() Config {
	return Config{
		Listen:    "127.0.0.1:7447",
		DataDir:   "./toolbus-data",
		LogFormat: "text",
		LogLevel:  "info",
		Info: Info{
			Name:        "toolbus",
			Description: "A self-hosted Nostr relay and tool bus for coding agents.",
		},
		Workspace: Workspace{Mode: ModeMembers},
		Limits: Limits{
			MaxMessageBytes:     524288,
			MaxSubscriptions:    64,
			MaxFilters:          16,
			MaxLimit:            1000,
			MaxEventTags:        2000,
			MaxContentBytes:     65535,
			MaxFilterValues:     1000,
			EventsPerSecond:     20,
			EventsBurst:         100,
			IPEventsPerSecond:   50,
			IPEventsBurst:       200,
			MaxConnectionsPerIP: 256,
			MinFreeDiskMB:       64,
		},
		Storage: Storage{Backend: BackendLMDB},
		ToolBus: ToolBus{
			AnonymousWraps:      true,
			MailboxSeconds:      120,
			MailboxPerRecipient: 256,
			Audit:               true,
			AuditRetentionDays:  30,
		},
		Git: Git{Enabled: true, ProtectedBranches: []string{"main"}, MaxRequestBytes: 256 << 20},
	}
}

// Values of Workspace.Mode and Storage.Backend, named so that callers
// compare against constants rather than repeating string literals.
const (
	// ModeMembers lets only members write and read member events.
	ModeMembers = "members"
	// ModeOpen lets anyone write and read.
	ModeOpen = "open"
	// BackendLMDB is the embedded LMDB event store.
	BackendLMDB = "lmdb"
)
