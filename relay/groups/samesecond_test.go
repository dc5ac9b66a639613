package groups

import (
	"context"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Creating a channel and adding someone within one second — what an agent
// does — is accepted live and replays identically, whatever the event ids.
func TestCreateAndAddInOneSecond(t *testing.T) {
	e := newEnv(t)
	now := e.now
	for _, ev := range []*nostr.Event{
		e.at(now, "owner", kindCreateGroup, h("s")),
		e.at(now, "owner", kindPutUser, h("s"), p(e.pk("a"))),
	} {
		if _, reason := e.submit(ev); reason != "" {
			t.Fatalf("refused: %s", reason)
		}
	}
	fresh := e.newState()
	if err := fresh.Rebuild(context.Background(), e.storedEvents()); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"owner", "a"} {
		if fresh.Role(e.pk(who), "s") == "" {
			t.Fatalf("%s lost after rebuild", who)
		}
	}
}

// With the application order recorded, changes in one second are accepted
// in any order of their ids and replay identically in that order.
func TestRecordedOrderAcceptsAnyOrder(t *testing.T) {
	e := newEnv(t)
	e.s = New(e.relay, Options{Now: func() time.Time { return e.now }, RecordsOrder: true})
	now := e.now
	var order []*nostr.Event
	submit := func(ev *nostr.Event) {
		res, reason := e.submit(ev)
		if reason != "" {
			t.Fatalf("refused: %s", reason)
		}
		order = append(order, ev)
		order = append(order, res.Moderation...)
	}
	submit(e.at(now, "owner", kindCreateGroup, h("s")))
	a := e.at(now, "owner", kindPutUser, h("s"), p(e.pk("a")))
	b := e.at(now, "owner", kindPutUser, h("s"), p(e.pk("b")))
	if a.ID < b.ID {
		a, b = b, a // submit the later-sorting one first
	}
	submit(a)
	submit(b)
	submit(e.at(now, "owner", kindRemoveUser, h("s"), p(e.pk("a"))))
	fresh := New(e.relay, Options{RecordsOrder: true})
	if err := fresh.RebuildOrdered(context.Background(), order); err != nil {
		t.Fatal(err)
	}
	if fresh.Role(e.pk("a"), "s") != "" || fresh.Role(e.pk("b"), "s") != RoleMember {
		t.Fatalf("replay diverged: a=%q b=%q", fresh.Role(e.pk("a"), "s"), fresh.Role(e.pk("b"), "s"))
	}
}
