package relay_test

import (
	"encoding/json"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// The filters of one REQ are alternatives: an event that several of them
// match is sent once.
func TestReqSendsEachStoredEventOnce(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	note := testutil.Signed(t, r.Member, 1, "matched twice")
	other := testutil.Signed(t, r.Member, 1, "matched once")
	for _, ev := range []nostr.Event{note, other} {
		c.SendJSON([]any{"EVENT", ev})
		c.ExpectAccepted()
	}
	c.SendJSON([]any{"REQ", "two", nostr.Filter{IDs: []string{note.ID}},
		nostr.Filter{Kinds: []int{1}, Authors: []string{r.Member.PublicKey()}}})
	count := map[string]int{}
	for _, m := range c.UntilEOSE("two") {
		var ev nostr.Event
		if testutil.Label(m) == "EVENT" && json.Unmarshal(m[2], &ev) == nil {
			count[ev.ID]++
		}
	}
	if count[note.ID] != 1 || count[other.ID] != 1 || len(count) != 2 {
		t.Fatalf("events sent per id: %v; want each of the two once", count)
	}
}
