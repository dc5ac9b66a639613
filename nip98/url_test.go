package nip98

import "testing"

func TestNormalizeURL(t *testing.T) {
	same := [][2]string{
		{"https://relay.example", "https://relay.example/"},
		{"HTTPS://Relay.Example:443/a", "https://relay.example/a"},
		{"http://relay.example:80/a/", "http://relay.example/a"},
		{"https://relay.example/a?x=1#frag", "https://relay.example/a?x=1"},
		{"https://[::1]:443/a", "https://[::1]/a"},
	}
	for _, p := range same {
		a, errA := normalizeURL(p[0])
		b, errB := normalizeURL(p[1])
		if errA != nil || errB != nil || a != b {
			t.Errorf("%q and %q: %q (%v) vs %q (%v)", p[0], p[1], a, errA, b, errB)
		}
	}
	different := [][2]string{
		{"https://relay.example/a", "http://relay.example/a"},
		{"https://relay.example:8443/a", "https://relay.example/a"},
		{"https://relay.example/a", "https://relay.example/A"},
		{"https://relay.example/a?x=1", "https://relay.example/a?x=2"},
		{"https://relay.example/a//", "https://relay.example/a"},
	}
	for _, p := range different {
		a, _ := normalizeURL(p[0])
		b, _ := normalizeURL(p[1])
		if a == b {
			t.Errorf("%q and %q both normalise to %q", p[0], p[1], a)
		}
	}
	for _, bad := range []string{"", "/a", "relay.example/a", "ftp://relay.example/", "https://u:p@relay.example/", "mailto:x@y"} {
		if got, err := normalizeURL(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
}
