package relay

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestReplayOrderWithoutRecord: with the order record lost, a channel
// created and joined in the same second must replay creation first even
// when the join's id sorts first; recorded ids keep their recorded order.
func TestReplayOrderWithoutRecord(t *testing.T) {
	const relayPK, admin = "rr", "aa"
	id := func(c string) string { return strings.Repeat(c, 64) }
	create := &nostr.Event{ID: id("f"), Kind: 9007, CreatedAt: 100, PubKey: admin}
	put := &nostr.Event{ID: id("0"), Kind: 9000, CreatedAt: 100, PubKey: admin}
	relayPut := &nostr.Event{ID: id("1"), Kind: 9000, CreatedAt: 100, PubKey: relayPK}
	later := &nostr.Event{ID: id("2"), Kind: 9001, CreatedAt: 101, PubKey: admin}
	log := []*nostr.Event{later, relayPut, put, create}

	got := replayOrder(log, nil, relayPK)
	want := []*nostr.Event{create, put, relayPut, later}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("no record: position %d is kind %d id %.4s, want kind %d id %.4s",
				i, got[i].Kind, got[i].ID, want[i].Kind, want[i].ID)
		}
	}

	got = replayOrder(log, []string{later.ID, put.ID}, relayPK)
	want = []*nostr.Event{later, put, create, relayPut}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("partial record: position %d is id %.4s, want %.4s", i, got[i].ID, want[i].ID)
		}
	}
}
