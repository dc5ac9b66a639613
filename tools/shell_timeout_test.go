package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestShellDefaultTimeout: an omitted (or zero) timeout means 120,000 ms;
// the resolution is checked directly, so the test does not wait for it.
func TestShellDefaultTimeout(t *testing.T) {
	if defaultTimeoutMs != 120_000 {
		t.Fatalf("defaultTimeoutMs = %d, want 120000", defaultTimeoutMs)
	}
	for _, c := range []struct {
		ms   int
		want time.Duration
		note bool
	}{
		{0, 120 * time.Second, false},
		{1, time.Millisecond, false},
		{120_000, 120 * time.Second, false},
		{300_000, 300 * time.Second, false},
		{600_000, 600 * time.Second, false},
		{600_001, 600 * time.Second, true},
	} {
		got, note, err := shellTimeout(c.ms)
		if err != nil || got != c.want || (note != "") != c.note {
			t.Errorf("shellTimeout(%d) = %v, %q, %v; want %v (note %v)", c.ms, got, note, err, c.want, c.note)
		}
	}
	// The schema's field is omitempty, so an omitted timeout decodes to 0.
	var in ShellIn
	if err := json.Unmarshal([]byte(`{"command":"true"}`), &in); err != nil || in.Timeout != 0 {
		t.Fatalf("omitted timeout decodes to %d (%v)", in.Timeout, err)
	}
}

// TestShellDescriptionsStateDefaultTimeout: the model learns the default
// from the description and the schema.
func TestShellDescriptionsStateDefaultTimeout(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatal(err, tools)
	}
	if d := tools.Tools[0].Description; !strings.Contains(d, "default 120000") {
		t.Errorf("description does not give the 120000 ms default:\n%s", d)
	}
	in, _ := json.Marshal(tools.Tools[0].InputSchema)
	if !strings.Contains(string(in), "default 120000") {
		t.Errorf("timeout schema does not give the default: %s", in)
	}
}

// TestShellDescriptionStatesConfinementOnlyWhenEnforced mirrors
// TestDescriptionsStateConfinementOnlyWhenEnforced: the shell is confined
// only in its starting directory, and only a confined server says so.
func TestShellDescriptionStatesConfinementOnlyWhenEnforced(t *testing.T) {
	for _, confine := range []bool{true, false} {
		e := shellEnvForTest(t)
		e.Confine = confine
		d := toolDescription(t, connectShell(t, e), "shell")
		for _, claim := range []string{"workdir must stay inside", "must stay inside", "confinement"} {
			if got := strings.Contains(d, claim); got != confine {
				t.Errorf("confine=%v: description contains %q: %v\n%s", confine, claim, got, d)
			}
		}
		if !strings.Contains(d, "It starts in `workdir`, relative to "+e.Workdir) {
			t.Errorf("confine=%v: description does not explain workdir:\n%s", confine, d)
		}
	}
}
