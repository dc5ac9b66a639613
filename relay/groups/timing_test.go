package groups

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// at signs a moderation event with an explicit created_at.
func (e *env) at(ts time.Time, who string, kind int, tags ...nostr.Tag) *nostr.Event {
	ev := e.ev(who, kind, tags...)
	ev.CreatedAt = nostr.Timestamp(ts.Unix())
	if e.fast {
		ev.ID = ev.GetID()
	} else if err := ev.Sign(e.sks[who]); err != nil {
		e.t.Fatal(err)
	}
	return ev
}

// TestReplayRefused: moderation events outside the clock window, already
// applied, or older than the group's latest change are refused.
func TestReplayRefused(t *testing.T) {
	e := setup(t)
	put := e.ev("admin", kindPutUser, h("g"), p(e.pk("x")))
	if _, reason := e.submit(put); reason != "" {
		t.Fatal(reason)
	}
	cases := []struct {
		name string
		ev   *nostr.Event
		want string
	}{
		{"resubmitted", put, "duplicate:"},
		{"two hours old", e.at(e.now.Add(-2*time.Hour), "owner", kindEditMetadata, h("g")), "invalid:"},
		{"two hours ahead", e.at(e.now.Add(2*time.Hour), "owner", kindEditMetadata, h("g")), "invalid:"},
		{"old delete-event", e.at(e.now.Add(-2*time.Hour), "owner", kindDeleteEvent, h("g"), nostr.Tag{"e", put.ID}), "invalid:"},
		{"before latest change", e.at(e.now.Add(-time.Minute), "owner", kindRemoveUser, h("g"), p(e.pk("x"))), "invalid:"},
	}
	for _, c := range cases {
		if reason := e.s.Check(c.ev); !strings.HasPrefix(reason, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, reason, c.want)
		}
	}
	// Content is not subject to the moderation clock.
	if reason := e.s.Check(e.at(e.now.Add(-2*time.Hour), "member", 9, h("g"))); reason != "" {
		t.Errorf("old content refused: %q", reason)
	}
}

// TestApplyRechecks: an event that passed Check but lost a race is refused
// by Apply with a RejectError and changes nothing.
func TestApplyRechecks(t *testing.T) {
	e := setup(t)
	promote := e.at(e.now.Add(time.Minute), "admin", kindPutUser, h("g"), p(e.pk("x")))
	if reason := e.s.Check(promote); reason != "" {
		t.Fatal(reason)
	}
	e.do("owner", kindRemoveUser, h("g"), p(e.pk("admin")))
	_, err := e.s.Apply(context.Background(), promote)
	var rej *RejectError
	if !errors.As(err, &rej) || !strings.HasPrefix(rej.Reason, "restricted:") {
		t.Fatalf("err = %v", err)
	}
	if e.s.Role(e.pk("x"), "g") != "" {
		t.Fatal("refused event was applied")
	}
}

// TestSameSecondOrder: within one second, a channel's creation replays
// first and users' events before the relay's; a user event sorting before
// the latest change is refused, so live order and replay order cannot
// diverge.
func TestSameSecondOrder(t *testing.T) {
	e := setup(t)
	now := e.now
	a := e.at(now, "admin", kindPutUser, h("g"), p(e.pk("x")))
	b := e.at(now, "admin", kindPutUser, h("g"), p(e.pk("y")))
	first, second := a, b
	if b.ID < a.ID {
		first, second = b, a
	}
	if _, reason := e.submit(second); reason != "" {
		t.Fatal(reason)
	}
	if _, reason := e.submit(first); !strings.HasPrefix(reason, "invalid:") {
		t.Fatalf("earlier-sorting event accepted: %q", reason)
	}
	relayKey := keyOf(&nostr.Event{CreatedAt: 5, PubKey: e.relay.PublicKey(), ID: "0"}, e.relay.PublicKey())
	userKey := keyOf(&nostr.Event{CreatedAt: 5, PubKey: e.pk("x"), ID: "f"}, e.relay.PublicKey())
	if relayKey.compare(userKey) <= 0 {
		t.Fatal("relay event should sort after a user event of the same second")
	}
}

// TestRemoveAfterFutureEvent: a workspace ban still lands, and sorts last,
// when the group's latest change is dated at the edge of the clock window.
func TestRemoveAfterFutureEvent(t *testing.T) {
	e := setup(t)
	ahead := e.at(e.now.Add(time.Hour), "admin", kindPutUser, h("g"), p(e.pk("x")))
	if _, reason := e.submit(ahead); reason != "" {
		t.Fatal(reason)
	}
	res, err := e.s.Remove(context.Background(), e.pk("x"))
	if err != nil || len(res) != 1 {
		t.Fatalf("Remove = %+v, %v", res, err)
	}
	if at := res[0].Moderation[0].CreatedAt; at <= ahead.CreatedAt {
		t.Fatalf("relay 9001 at %d does not sort after %d", at, ahead.CreatedAt)
	}
}
