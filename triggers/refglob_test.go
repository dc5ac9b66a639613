package triggers

import "testing"

func TestMatchRef(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"refs/heads/*", "refs/heads/main", true},
		{"refs/heads/*", "refs/heads/feature/x", true},
		{"refs/heads/*", "refs/tags/v1", false},
		{"refs/heads/main", "refs/heads/main", true},
		{"refs/heads/main", "refs/heads/main2", false},
		{"refs/heads/rel-*", "refs/heads/rel-1.0", true},
		{"refs/heads/rel-*", "refs/heads/release", false},
		{"refs/tags/v*", "refs/tags/v2", true},
		{"refs/*/wip", "refs/heads/wip", true},
		{"refs/*/wip", "refs/heads/team/wip", true},
		{"refs/*/wip", "refs/heads/wip2", false},
		{"refs/heads/*-*", "refs/heads/a-b", true},
		{"refs/heads/*-*", "refs/heads/ab", false},
		{"refs/heads/a*a", "refs/heads/a", false},
		{"*", "refs/heads/x", true},
		{"refs/heads/[ab]", "refs/heads/a", false}, // no character classes: literal
	} {
		if got := matchRef(c.pattern, c.name); got != c.want {
			t.Errorf("matchRef(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestCheckRefPattern(t *testing.T) {
	for p, ok := range map[string]bool{"refs/heads/*": true, "*": true, "heads/main": false, "main": false} {
		if err := checkRefPattern(p); (err == nil) != ok {
			t.Errorf("checkRefPattern(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}
