package bench

import (
	"os"
	"slices"
	"strings"
	"testing"

	"toolbus/internal/config"
)

func TestParseOK(t *testing.T) {
	id := strings.Repeat("0f", 32)
	tests := []struct {
		msg  string
		want okFrame
	}{
		{`["OK","` + id + `",true,""]`, okFrame{id: id, accepted: true}},
		{`[ "OK", "` + id + `", true, "duplicate: have it" ]`, okFrame{id: id, accepted: true, reason: "duplicate: have it"}},
		{`["OK","` + id + `",false,"blocked: no"]`, okFrame{id: id, reason: "blocked: no"}},
	}
	for _, tt := range tests {
		got, err := parseOK([]byte(tt.msg))
		if err != nil || got != tt.want {
			t.Errorf("parseOK(%s) = %+v, %v; want %+v", tt.msg, got, err, tt.want)
		}
	}
	if _, err := parseOK([]byte(`["OK"]`)); err == nil {
		t.Error("parseOK accepted a truncated OK")
	}
}

func TestEventIDAndLabel(t *testing.T) {
	id := strings.Repeat("ab", 32)
	for _, msg := range []string{
		`["EVENT","s",{"kind":1,"id":"` + id + `","content":"x"}]`,
		`["EVENT", "s", {"content": "x", "id": "` + id + `"}]`,
	} {
		if got, err := eventID([]byte(msg)); err != nil || got != id {
			t.Errorf("eventID(%s) = %q, %v", msg, got, err)
		}
		if l := label([]byte(msg)); l != "EVENT" {
			t.Errorf("label(%s) = %q", msg, l)
		}
	}
	if l := label([]byte(` ["EOSE","s"]`)); l != "EOSE" {
		t.Errorf("label with leading space = %q", l)
	}
}

// TestToolbusConfigValidates checks that the generated config is one the
// relay accepts, in members mode, with every key a member.
func TestToolbusConfigValidates(t *testing.T) {
	c := testCrew(t)
	cfg, err := config.Parse([]byte(toolbusConfig(c.members())), "bench.toml")
	if err != nil {
		t.Fatalf("generated config refused: %v\n%s", err, toolbusConfig(c.members()))
	}
	if cfg.Workspace.Mode != config.ModeMembers {
		t.Errorf("mode = %q", cfg.Workspace.Mode)
	}
	if got := cfg.MemberKeys(); !slices.Equal(got, c.members()) {
		t.Errorf("members = %v, want %v", got, c.members())
	}
	if cfg.Limits.MaxConnectionsPerIP != benchConnsPerIP {
		t.Errorf("max_connections_per_ip = %d", cfg.Limits.MaxConnectionsPerIP)
	}
}

func TestReadRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	mb, err := readRSS("/proc/self/status")
	if err != nil || mb <= 0 {
		t.Fatalf("readRSS = %v, %v", mb, err)
	}
}
