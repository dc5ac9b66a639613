package config

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestValidateNamesKey(t *testing.T) {
	hexKey, npub := newKey(t)
	tests := []struct {
		key    string
		mutate func(*Config)
	}{
		{"listen", func(c *Config) { c.Listen = "localhost" }},
		{"listen", func(c *Config) { c.Listen = "" }},
		{"listen", func(c *Config) { c.Listen = "127.0.0.1:http" }},
		{"listen", func(c *Config) { c.Listen = "127.0.0.1:70000" }},
		{"public_url", func(c *Config) { c.PublicURL = "relay.example.com" }},
		{"public_url", func(c *Config) { c.PublicURL = "/relay" }},
		{"public_url", func(c *Config) { c.PublicURL = "ftp://relay.example.com" }},
		{"public_url", func(c *Config) { c.PublicURL = "wss://relay.example.com/?a=b" }},
		{"public_url", func(c *Config) { c.PublicURL = "wss://relay.example.com/?" }},
		{"public_url", func(c *Config) { c.PublicURL = "https://relay.example.com/#top" }},
		{"public_url", func(c *Config) { c.PublicURL = "https://user:pw@relay.example.com" }},
		{"public_url", func(c *Config) { c.PublicURL = "https://:443" }},
		{"public_url", func(c *Config) { c.PublicURL = "http://a b" }},
		{"data_dir", func(c *Config) { c.DataDir = "" }},
		{"log_format", func(c *Config) { c.LogFormat = "xml" }},
		{"log_format", func(c *Config) { c.LogFormat = "" }},
		{"log_level", func(c *Config) { c.LogLevel = "verbose" }},
		{"log_level", func(c *Config) { c.LogLevel = "INFO" }},
		{"workspace.mode", func(c *Config) { c.Workspace.Mode = "closed" }},
		{"workspace.mode", func(c *Config) { c.Workspace.Mode = "" }},
		{"workspace.members[2]", func(c *Config) { c.Workspace.Members = []string{hexKey, npub, "npub1xyz"} }},
		{"workspace.members[0]", func(c *Config) { c.Workspace.Members = []string{hexKey[:63]} }},
		{"workspace.admins[1]", func(c *Config) { c.Workspace.Admins = []string{npub, strings.Repeat("g", 64)} }},
		{"limits.max_message_bytes", func(c *Config) { c.Limits.MaxMessageBytes = 0 }},
		{"limits.max_subscriptions", func(c *Config) { c.Limits.MaxSubscriptions = -1 }},
		{"limits.max_filters", func(c *Config) { c.Limits.MaxFilters = 0 }},
		{"limits.max_limit", func(c *Config) { c.Limits.MaxLimit = 0 }},
		{"limits.max_event_tags", func(c *Config) { c.Limits.MaxEventTags = 0 }},
		{"limits.max_content_bytes", func(c *Config) { c.Limits.MaxContentBytes = 0 }},
		{"limits.max_filter_values", func(c *Config) { c.Limits.MaxFilterValues = 0 }},
		{"limits.events_per_second", func(c *Config) { c.Limits.EventsPerSecond = 0 }},
		{"limits.events_per_second", func(c *Config) { c.Limits.EventsPerSecond = math.NaN() }},
		{"limits.events_burst", func(c *Config) { c.Limits.EventsBurst = 0 }},
		{"limits.ip_events_per_second", func(c *Config) { c.Limits.IPEventsPerSecond = math.Inf(1) }},
		{"limits.ip_events_burst", func(c *Config) { c.Limits.IPEventsBurst = 0 }},
		{"limits.max_connections_per_ip", func(c *Config) { c.Limits.MaxConnectionsPerIP = 0 }},
		{"storage.backend", func(c *Config) { c.Storage.Backend = "sqlite" }},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			if got := errKeys(err); !slices.Equal(got, []string{tt.key}) {
				t.Fatalf("keys %v, want [%s] (err %v)", got, tt.key, err)
			}
			mustContain(t, err.Error(), "config: "+tt.key+": ")
		})
	}
}

func TestValidateAcceptsGoodValues(t *testing.T) {
	hexKey, npub := newKey(t)
	tests := []struct {
		name   string
		mutate func(*Config)
	}{
		{"all interfaces", func(c *Config) { c.Listen = ":7447" }},
		{"ipv6", func(c *Config) { c.Listen = "[::1]:7447" }},
		{"free port", func(c *Config) { c.Listen = "127.0.0.1:0" }},
		{"hostname", func(c *Config) { c.Listen = "localhost:7447" }},
		{"wss url", func(c *Config) { c.PublicURL = "wss://relay.example.com" }},
		{"https url with path", func(c *Config) { c.PublicURL = "https://example.com/relay/" }},
		{"upper-case scheme", func(c *Config) { c.PublicURL = "WSS://relay.example.com" }},
		{"json debug", func(c *Config) { c.LogFormat, c.LogLevel = "json", "debug" }},
		{"open", func(c *Config) { c.Workspace.Mode = ModeOpen }},
		{"keys", func(c *Config) {
			c.Workspace.Members = []string{npub, " " + strings.ToUpper(hexKey) + " "}
			c.Workspace.Admins = []string{hexKey}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestValidateReportsAllProblems(t *testing.T) {
	c := Default()
	c.Listen = "nope"
	c.LogLevel = "loud"
	c.Workspace.Members = []string{"bad"}
	c.Limits.MaxFilters = 0
	c.Limits.EventsPerSecond = -1
	want := []string{"limits.events_per_second", "limits.max_filters", "listen", "log_level", "workspace.members[0]"}
	err := c.Validate()
	if got := errKeys(err); !slices.Equal(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != len(want) {
		t.Errorf("%d lines, want %d:\n%v", n, len(want), err)
	}
	var ke *KeyError
	if !errors.As(err, &ke) {
		t.Error("errors.As found no *KeyError")
	}
}

// TestBadKeysAreNotEchoed guards the promise that a secret key pasted into
// the wrong list never reaches a log in full.
func TestBadKeysAreNotEchoed(t *testing.T) {
	secretHex := strings.Repeat("f", 64) // not a curve point, so rejected
	nsec := "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"
	c := Default()
	c.Workspace.Members = []string{secretHex}
	c.Workspace.Admins = []string{nsec}
	msg := c.Validate().Error()
	for _, leak := range []string{secretHex[:9], nsec[:6]} {
		if strings.Contains(msg, leak) {
			t.Errorf("error echoes %q: %s", leak, msg)
		}
	}
	mustContain(t, msg, "workspace.members[0]: invalid public key", `"ffffffff"…`,
		"workspace.admins[0]: this is a secret key")
}

func TestParseLocatesValidationErrors(t *testing.T) {
	data := "# comment\n[workspace]\nmembers = [\n  \"x\",\n]\n[limits]\nmax_limit = 0\n"
	_, err := Parse([]byte(data), "v.toml")
	mustContain(t, err.Error(), "config: v.toml:3: workspace.members[0]: ", "config: v.toml:7: limits.max_limit: ")
}
