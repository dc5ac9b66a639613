package triggers

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Defaults of fields left zero.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 10 * time.Minute
	DefaultMaxAttempts = 5
	DefaultTailLines   = 20
	DefaultRetention   = 7 * 24 * time.Hour
	// MaxTriggers is the most triggers one runner serves: they share one
	// subscription, and the relay allows 16 filters per REQ.
	MaxTriggers = 16
)

// Config is a trigger runner's configuration file.
type Config struct {
	// Relay is the relay's websocket URL.
	Relay string `toml:"relay"`
	// KeyFile holds the runner's own key; empty means NOSTR_PRIVATE_KEY,
	// then the default key file.
	KeyFile string `toml:"key_file"`
	// StateDir holds the journal; required.
	StateDir string `toml:"state_dir"`
	// Concurrency bounds events being handled at once, all triggers together.
	Concurrency int `toml:"concurrency"`
	// Retention is how long a handled event is remembered; older events are
	// ignored (so none can run twice). Default 7 days.
	Retention Duration `toml:"retention"`
	// Triggers are the [[trigger]] entries.
	Triggers []TriggerConfig `toml:"trigger"`
}

// TriggerConfig is one [[trigger]].
type TriggerConfig struct {
	// Name identifies the trigger in the journal and in messages: renaming
	// a trigger starts it afresh.
	Name string `toml:"name"`
	// Filter selects the events that trigger a call.
	Filter FilterConfig `toml:"filter"`
	// Worker is the target's pubkey (npub or hex); WorkerName finds it by
	// the name tag of its kind-11316 announcement instead.
	Worker     string `toml:"worker"`
	WorkerName string `toml:"worker_name"`
	// Tool is the tool name, a template.
	Tool string `toml:"tool"`
	// AllowedTools, when set, bounds what a templated Tool may name.
	AllowedTools []string `toml:"allowed_tools"`
	// Arguments' string values are templates; ArgumentsJSON is one
	// template whose output is the JSON object of arguments. At most one.
	Arguments     map[string]any `toml:"arguments"`
	ArgumentsJSON string         `toml:"arguments_json"`
	// Reply is "thread", "channel:<id>" or "repo-channel".
	Reply string `toml:"reply"`
	// Timeout bounds the wait for a call's result.
	Timeout Duration `toml:"timeout"`
	// MaxAttempts bounds sends of a call while the relay is unreachable,
	// and calls refused unrun by a rate-limited worker.
	MaxAttempts int `toml:"max_attempts"`
	// Since lets a trigger's first run also handle events this old.
	Since Duration `toml:"since"`
	// Plaintext sends calls as kind 25910 instead of gift wraps.
	Plaintext bool `toml:"plaintext"`
	// TailLines is how many last lines of output the message shows.
	TailLines int `toml:"tail_lines"`
	// Message holds the headline templates.
	Message MessageConfig `toml:"message"`
}

// FilterConfig selects the events of a trigger (all given fields must
// match). Authors and P accept npub, hex, "$relay", "$self" and "$worker".
type FilterConfig struct {
	Kinds   []int    `toml:"kinds"`
	Authors []string `toml:"authors"`
	H       []string `toml:"h"`
	P       []string `toml:"p"`
	A       []string `toml:"a"`
	D       []string `toml:"d"`
	// Refs are patterns on the refs a 30618 changed; `*` matches any
	// characters, `/` included, as in git refspecs (see matchRef).
	Refs []string `toml:"refs"`
}

// MessageConfig holds the headline templates of the posted message.
type MessageConfig struct {
	OK   string `toml:"ok"`
	Fail string `toml:"fail"`
}

// Duration is a TOML string such as "90s" or "10m".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %s", b)
	}
	d.Duration = v
	return nil
}

// MarshalText formats the duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Load reads and validates a config file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes TOML, refusing unknown keys (a typo must not silently
// disable part of a trigger), fills defaults and validates.
func Parse(data []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return nil, err
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		return nil, fmt.Errorf("unknown keys: %s", strings.Join(names, ", "))
	}
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// ApplyDefaults fills the fields left zero with their defaults (Parse and
// New do it; a Config built in Go needs nothing more).
func (c *Config) ApplyDefaults() {
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Retention.Duration == 0 {
		c.Retention.Duration = DefaultRetention
	}
	for i := range c.Triggers {
		t := &c.Triggers[i]
		if t.Timeout.Duration == 0 {
			t.Timeout.Duration = DefaultTimeout
		}
		if t.MaxAttempts == 0 {
			t.MaxAttempts = DefaultMaxAttempts
		}
		if t.TailLines == 0 {
			t.TailLines = DefaultTailLines
		}
	}
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Validate checks the whole configuration, templates included, and reports
// every problem at once.
func (c *Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !strings.HasPrefix(c.Relay, "ws://") && !strings.HasPrefix(c.Relay, "wss://") {
		add("relay: want a ws:// or wss:// URL, got %q", c.Relay)
	}
	if c.StateDir == "" {
		add("state_dir: required (the journal that makes each event run once)")
	}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		add("concurrency: want 1 to 256, got %d", c.Concurrency)
	}
	if c.Retention.Duration < time.Hour {
		add("retention: want at least 1h, got %s", c.Retention)
	}
	if n := len(c.Triggers); n == 0 || n > MaxTriggers {
		add("trigger: want 1 to %d [[trigger]] entries, got %d", MaxTriggers, n)
	}
	seen := map[string]bool{}
	for i := range c.Triggers {
		t := &c.Triggers[i]
		if seen[t.Name] {
			add("trigger %q: duplicate name", t.Name)
		}
		seen[t.Name] = true
		if _, err := compile(t); err != nil {
			add("trigger %d (%q): %w", i+1, t.Name, err)
		}
	}
	return errors.Join(errs...)
}
