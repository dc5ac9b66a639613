package relay_test

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// A republished event is acknowledged as a duplicate and stored once
// (eventstore's own SaveEvent would store it again: see storebatch.go).
func TestRepublishIsDuplicate(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ev := testutil.Signed(t, r.Member, 1, "once")
	raw := testutil.DialRaw(t, r.URL)
	raw.Auth(r.Member, r.URL)
	for i, want := range []string{`""`, `"duplicate: already have this event"`} {
		raw.SendJSON([]any{"EVENT", ev})
		ok := raw.Expect("OK", "")
		if string(ok[2]) != "true" || string(ok[3]) != want {
			t.Fatalf("publish %d: OK %s %s, want true %s", i+1, ok[2], ok[3], want)
		}
	}
	raw.SendJSON([]any{"REQ", "all", nostr.Filter{Kinds: []int{1}}})
	if got := raw.UntilEOSE("all"); len(got) != 1 {
		t.Fatalf("stored %d copies, want 1: %s", len(got), got)
	}
}
