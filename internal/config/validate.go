package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"

	"toolbus/signer"
)

// Validate checks every key and returns all problems at once (joined with
// errors.Join, each a *KeyError naming its key), so that one run of the
// relay shows everything to fix rather than one mistake per restart.
func (c *Config) Validate() error {
	var errs []error
	add := func(key, problem string) {
		errs = append(errs, &KeyError{Key: key, Problem: problem})
	}
	c.validateServer(add)
	c.validateWorkspace(add)
	c.Limits.validate(add)
	c.ToolBus.validate(add)
	if c.Limits.MinFreeDiskMB < 0 {
		add("limits.min_free_disk_mb", fmt.Sprintf("must not be negative, got %d", c.Limits.MinFreeDiskMB))
	}
	if c.Git.MaxRequestBytes <= 0 {
		add("git.max_request_bytes", fmt.Sprintf("must be positive, got %d", c.Git.MaxRequestBytes))
	}
	if c.Storage.Backend != BackendLMDB {
		add("storage.backend", fmt.Sprintf("want %q, got %s", BackendLMDB, quote(c.Storage.Backend)))
	}
	return errors.Join(errs...)
}

// validateServer checks the top-level keys.
func (c *Config) validateServer(add func(key, problem string)) {
	if err := checkListen(c.Listen); err != nil {
		add("listen", err.Error())
	}
	if c.PublicURL != "" {
		if err := checkPublicURL(c.PublicURL); err != nil {
			add("public_url", err.Error())
		}
	}
	if c.DataDir == "" {
		add("data_dir", "must not be empty")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		add("log_format", fmt.Sprintf(`want "text" or "json", got %s`, quote(c.LogFormat)))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		add("log_level", fmt.Sprintf(`want "debug", "info", "warn" or "error", got %s`, quote(c.LogLevel)))
	}
}

// validateWorkspace checks the mode and every member and admin key.
func (c *Config) validateWorkspace(add func(key, problem string)) {
	w := c.Workspace
	if w.Mode != ModeMembers && w.Mode != ModeOpen {
		add("workspace.mode", fmt.Sprintf("want %q or %q, got %s", ModeMembers, ModeOpen, quote(w.Mode)))
	}
	checkKeys("workspace.members", w.Members, add)
	checkKeys("workspace.admins", w.Admins, add)
}

// checkKeys reports each entry of list that is not a public key.
func checkKeys(name string, list []string, add func(key, problem string)) {
	for i, s := range list {
		if _, err := signer.ParsePubKey(s); err != nil {
			add(fmt.Sprintf("%s[%d]", name, i), keyProblem(s, err))
		}
	}
}

// keyProblem explains a bad key. A secret key gets its own message and is
// never quoted at all: pasting an nsec here is the mistake most worth
// catching, and its prefix alone would already be too much in a log.
func keyProblem(s string, err error) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "nsec1") {
		return "this is a secret key (nsec); list the npub here and keep the nsec private"
	}
	return fmt.Sprintf("%v (got %s)", err, preview(s))
}

// checkListen accepts host:port with a numeric port (0 asks the OS for a
// free port, which tests use) and an empty, IP or name host.
func checkListen(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf(`want host:port such as "127.0.0.1:7447", got %s`, quote(s))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port must be a number from 0 to 65535, got %s", quote(port))
	}
	return nil
}

// checkPublicURL accepts an absolute http, https, ws or wss URL with a host
// and no credentials, query or fragment: NIP-42 and NIP-98 compare URLs
// exactly, and those parts would never match what clients send.
func checkPublicURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL: %s", quote(s))
	}
	switch {
	case !knownScheme(u.Scheme):
		return fmt.Errorf("want an http://, https://, ws:// or wss:// URL, got %s", quote(s))
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("URL has no host: %s", quote(s))
	case u.User != nil:
		return errors.New("URL must not contain credentials")
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Errorf("URL must not have a query: %s", quote(s))
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("URL must not have a fragment: %s", quote(s))
	}
	return nil
}

// knownScheme reports whether scheme (lower case, as url.Parse leaves it)
// is one the relay can be reached by.
func knownScheme(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss":
		return true
	}
	return false
}

// validate checks that every limit is positive and every rate finite.
func (l *Limits) validate(add func(key, problem string)) {
	for _, f := range l.counts() {
		if f.v <= 0 {
			add("limits."+f.key, fmt.Sprintf("must be positive, got %d", f.v))
		}
	}
	for _, f := range l.rates() {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			add("limits."+f.key, fmt.Sprintf("must be a positive finite number, got %v", f.v))
		}
	}
}

// named pairs a limit's TOML key with its value.
type named[T int | float64] struct {
	key string
	v   T
}

// counts lists the integer limits by key.
func (l *Limits) counts() []named[int] {
	return []named[int]{
		{"max_message_bytes", l.MaxMessageBytes},
		{"max_subscriptions", l.MaxSubscriptions},
		{"max_filters", l.MaxFilters},
		{"max_limit", l.MaxLimit},
		{"max_event_tags", l.MaxEventTags},
		{"max_content_bytes", l.MaxContentBytes},
		{"max_filter_values", l.MaxFilterValues},
		{"events_burst", l.EventsBurst},
		{"ip_events_burst", l.IPEventsBurst},
		{"max_connections_per_ip", l.MaxConnectionsPerIP},
	}
}

// rates lists the per-second rate limits by key.
func (l *Limits) rates() []named[float64] {
	return []named[float64]{
		{"events_per_second", l.EventsPerSecond},
		{"ip_events_per_second", l.IPEventsPerSecond},
	}
}

// validate checks the tool bus section.
func (b *ToolBus) validate(add func(key, problem string)) {
	if b.MailboxSeconds < 0 || b.MailboxSeconds > 3600 {
		add("tool_bus.mailbox_seconds", fmt.Sprintf("want 0 to 3600, got %d", b.MailboxSeconds))
	}
	if b.MailboxPerRecipient <= 0 {
		add("tool_bus.mailbox_per_recipient", fmt.Sprintf("must be positive, got %d", b.MailboxPerRecipient))
	}
	if b.AuditRetentionDays <= 0 {
		add("tool_bus.audit_retention_days", fmt.Sprintf("must be positive, got %d", b.AuditRetentionDays))
	}
}
