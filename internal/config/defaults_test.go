package config

import "testing"

func TestDefaultValidates(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default() does not validate: %v", err)
	}
}

func TestDefaultValues(t *testing.T) {
	c := Default()
	tests := []struct {
		key       string
		got, want any
	}{
		{"listen", c.Listen, "127.0.0.1:7447"},
		{"public_url", c.PublicURL, ""},
		{"trust_proxy", c.TrustProxy, false},
		{"data_dir", c.DataDir, "./toolbus-data"},
		{"key_file", c.KeyFile, ""},
		{"log_format", c.LogFormat, "text"},
		{"log_level", c.LogLevel, "info"},
		{"info.name", c.Info.Name, "toolbus"},
		{"workspace.mode", c.Workspace.Mode, "members"},
		{"limits.max_message_bytes", c.Limits.MaxMessageBytes, 524288},
		{"limits.max_subscriptions", c.Limits.MaxSubscriptions, 64},
		{"limits.max_filters", c.Limits.MaxFilters, 16},
		{"limits.max_limit", c.Limits.MaxLimit, 1000},
		{"limits.max_event_tags", c.Limits.MaxEventTags, 2000},
		{"limits.max_content_bytes", c.Limits.MaxContentBytes, 65535},
		{"limits.max_filter_values", c.Limits.MaxFilterValues, 1000},
		{"limits.events_per_second", c.Limits.EventsPerSecond, 20.0},
		{"limits.events_burst", c.Limits.EventsBurst, 100},
		{"limits.ip_events_per_second", c.Limits.IPEventsPerSecond, 50.0},
		{"limits.ip_events_burst", c.Limits.IPEventsBurst, 200},
		{"limits.max_connections_per_ip", c.Limits.MaxConnectionsPerIP, 256},
		{"storage.backend", c.Storage.Backend, "lmdb"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.key, tt.got, tt.want)
		}
	}
	if c.Info.Description == "" {
		t.Error("info.description is empty")
	}
}

func TestLoadEmptyPathIsDefault(t *testing.T) {
	for name, load := range map[string]func(string) (Config, error){"Load": Load, "Read": Read} {
		c, err := load("")
		if err != nil {
			t.Fatalf("%s(\"\"): %v", name, err)
		}
		if !equalConfig(c, Default()) {
			t.Errorf("%s(\"\") = %+v, want Default()", name, c)
		}
	}
}
