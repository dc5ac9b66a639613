package triggers

import (
	"os"
	"strings"
	"testing"
	"time"
)

const minimalTOML = `
relay = "ws://127.0.0.1:7447"
state_dir = "/tmp/x"

[[trigger]]
name = "t"
worker = "0000000000000000000000000000000000000000000000000000000000000001"
tool = "shell"
reply = "channel:ci"
[trigger.filter]
kinds = [9]
`

func TestParseDefaults(t *testing.T) {
	c, err := Parse([]byte(minimalTOML))
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Triggers[0]
	if c.Concurrency != DefaultConcurrency || c.Retention.Duration != DefaultRetention ||
		tc.Timeout.Duration != DefaultTimeout || tc.MaxAttempts != DefaultMaxAttempts || tc.TailLines != DefaultTailLines {
		t.Fatalf("defaults not applied: %+v", c)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]struct{ old, new, want string }{
		"unknown key":        {`tool = "shell"`, "tool = \"shell\"\ntypo = 1", "unknown keys: trigger.typo"},
		"unknown filter key": {`kinds = [9]`, "kinds = [9]\nauthor = []", "trigger.filter.author"},
		"two targets":        {`tool = "shell"`, "tool = \"shell\"\nworker_name = \"w\"", "exactly one of worker and worker_name"},
		"bad reply":          {`reply = "channel:ci"`, `reply = "elsewhere"`, `reply: want "thread"`},
		"repo-channel kinds": {`reply = "channel:ci"`, `reply = "repo-channel"`, "needs kinds = [30618]"},
		"bus kind":           {`kinds = [9]`, `kinds = [1059]`, "tool-bus traffic"},
		"no kinds":           {`kinds = [9]`, `kinds = []`, "filter.kinds: required"},
		"bad template":       {`tool = "shell"`, `tool = "{{.Nope"`, "unclosed action"},
		"bad duration":       {`tool = "shell"`, "tool = \"shell\"\ntimeout = \"soon\"", "invalid duration"},
		"bad author":         {`kinds = [9]`, "kinds = [9]\nauthors = [\"bob\"]", "filter.authors"},
		"refs not 30618":     {`kinds = [9]`, "kinds = [9]\nrefs = [\"refs/heads/*\"]", "only with kinds = [30618]"},
		"both argument kinds": {`tool = "shell"`, "tool = \"shell\"\narguments_json = \"{}\"\n[trigger.arguments]\ncommand = \"x\"",
			"at most one of arguments and arguments_json"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(strings.Replace(minimalTOML, c.old, c.new, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// The shipped example must parse.
func TestExampleParses(t *testing.T) {
	data, err := os.ReadFile("../triggers.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Triggers) != 2 || c.Triggers[0].Timeout.Duration != 15*time.Minute {
		t.Fatalf("unexpected example: %+v", c.Triggers)
	}
}
