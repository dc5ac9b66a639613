package relay_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
	"toolbus/signer"
)

// Helpers for the relay-level channel tests (moderation, joins, metadata):
// a chanPeer is one workspace key with its own authenticated connection that
// only publishes and runs stored queries, and a chanLive is a separate
// connection holding live subscriptions, read at the end.

// chanWorkspaceKey returns a fresh key admitted to the workspace.
func chanWorkspaceKey(t *testing.T, r *testutil.Relay) *signer.Local {
	t.Helper()
	k := testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", k.PublicKey()); err != nil {
		t.Fatal(err)
	}
	return k
}

type chanPeer struct {
	t   *testing.T
	key *signer.Local
	c   *testutil.RawConn
	n   int
}

func newChanPeer(t *testing.T, r *testutil.Relay, key *signer.Local) *chanPeer {
	t.Helper()
	c := testutil.DialRaw(t, r.URL)
	c.Auth(key, r.URL)
	return &chanPeer{t: t, key: key, c: c}
}

func (p *chanPeer) pk() string { return p.key.PublicKey() }

// publish sends ev and returns the OK's verdict and reason.
func (p *chanPeer) publish(ev nostr.Event) (bool, string) {
	p.t.Helper()
	p.c.SendJSON([]any{"EVENT", ev})
	arr := p.next("")
	if testutil.Label(arr) != "OK" {
		p.t.Fatalf("want OK, got %s", arr)
	}
	var id, reason string
	var ok bool
	json.Unmarshal(arr[1], &id)
	json.Unmarshal(arr[2], &ok)
	if len(arr) > 3 {
		json.Unmarshal(arr[3], &reason)
	}
	if id != ev.ID {
		p.t.Fatalf("OK for %s, want %s", id, ev.ID)
	}
	return ok, reason
}

// send signs and publishes an event that must be accepted; it returns it.
func (p *chanPeer) send(kind int, content string, tags ...nostr.Tag) nostr.Event {
	p.t.Helper()
	ev := testutil.Signed(p.t, p.key, kind, content, tags...)
	if ok, reason := p.publish(ev); !ok {
		p.t.Fatalf("kind %d %v refused: %s", kind, tags, reason)
	}
	return ev
}

// refused signs and publishes an event that must be refused with a reason
// starting with prefix.
func (p *chanPeer) refused(prefix string, kind int, content string, tags ...nostr.Tag) {
	p.t.Helper()
	ev := testutil.Signed(p.t, p.key, kind, content, tags...)
	ok, reason := p.publish(ev)
	if ok || !strings.HasPrefix(reason, prefix) {
		p.t.Fatalf("kind %d %v: got OK %v %q, want refused with %q", kind, tags, ok, reason, prefix)
	}
}

// fetch runs a stored query and returns the events of that subscription.
func (p *chanPeer) fetch(filters ...nostr.Filter) []nostr.Event {
	p.t.Helper()
	p.n++
	id := fmt.Sprint("q", p.n)
	msg := []any{"REQ", id}
	for _, f := range filters {
		msg = append(msg, f)
	}
	p.c.SendJSON(msg)
	var out []nostr.Event
	for {
		m := p.next(id)
		switch testutil.Label(m) {
		case "EOSE":
			p.c.SendJSON([]any{"CLOSE", id})
			return out
		case "CLOSED":
			p.t.Fatalf("REQ %v closed: %s", filters, m)
		}
		out = append(out, chanEventOf(p.t, m, id))
	}
}

// next returns the next message, skipping events of subscriptions other
// than sub (the open query, if any): a query stays subscribed until the
// relay has read its CLOSE, so a change made meanwhile on another
// connection may still be delivered to it.
func (p *chanPeer) next(sub string) []json.RawMessage {
	p.t.Helper()
	for {
		m := p.c.Next(10 * time.Second)
		var of string
		if testutil.Label(m) == "EVENT" && len(m) == 3 && json.Unmarshal(m[1], &of) == nil && of != sub {
			continue
		}
		return m
	}
}

// search polls a NIP-50 query until the hits are exactly want (by id, in
// any order), failing after a liveness deadline: the index is eventually
// consistent.
func (p *chanPeer) search(f nostr.Filter, want ...string) {
	p.t.Helper()
	slices.Sort(want)
	var got []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		got = chanIDs(p.fetch(f))
		slices.Sort(got)
		if slices.Equal(got, want) {
			return
		}
	}
	p.t.Fatalf("search %q %v: got %v, want %v", f.Search, f.Tags, got, want)
}

// chanEventOf decodes an EVENT message of subscription id.
func chanEventOf(t *testing.T, m []json.RawMessage, id string) nostr.Event {
	t.Helper()
	var sub string
	if testutil.Label(m) != "EVENT" || len(m) != 3 || json.Unmarshal(m[1], &sub) != nil || sub != id {
		t.Fatalf("want EVENT of %s, got %s", id, m)
	}
	var ev nostr.Event
	if err := json.Unmarshal(m[2], &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func chanIDs(evs []nostr.Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	return out
}

// chanHasIDs fails unless evs hold exactly the ids in want (any order).
func chanHasIDs(t *testing.T, what string, evs []nostr.Event, want ...string) {
	t.Helper()
	got := chanIDs(evs)
	slices.Sort(got)
	want = append([]string{}, want...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got ids %v, want %v", what, got, want)
	}
}

// chanLive is a connection of its own holding live subscriptions (opened
// after stored events, with limit 0).
type chanLive struct {
	t *testing.T
	c *testutil.RawConn
}

func newChanLive(t *testing.T, r *testutil.Relay, key *signer.Local, filters ...nostr.Filter) *chanLive {
	t.Helper()
	c := testutil.DialRaw(t, r.URL)
	c.Auth(key, r.URL)
	msg := []any{"REQ", "live"}
	for _, f := range filters {
		f.LimitZero = true
		msg = append(msg, f)
	}
	c.SendJSON(msg)
	if got := c.UntilEOSE("live"); len(got) != 0 {
		t.Fatalf("live subscription with limit 0 got stored events: %s", got)
	}
	return &chanLive{t: t, c: c}
}

// received returns what the live subscription delivered so far: a probe
// REQ's EOSE comes after every delivery queued before it.
func (l *chanLive) received() []nostr.Event {
	l.t.Helper()
	l.c.SendJSON([]any{"REQ", "probe", nostr.Filter{IDs: []string{strings.Repeat("0", 64)}}})
	var out []nostr.Event
	for _, m := range l.c.UntilEOSE("probe") {
		out = append(out, chanEventOf(l.t, m, "live"))
	}
	l.c.SendJSON([]any{"CLOSE", "probe"})
	return out
}

// chanKinds returns the events of the given kind.
func chanKinds(evs []nostr.Event, kind int) []nostr.Event {
	var out []nostr.Event
	for _, ev := range evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// chanMeta fetches a channel's relay-signed 39000-39003, checking that each
// kind comes once, signed by the relay; absent kinds are missing from the
// map.
func chanMeta(t *testing.T, r *testutil.Relay, p *chanPeer, gid string) map[int]nostr.Event {
	t.Helper()
	out := map[int]nostr.Event{}
	for _, ev := range p.fetch(nostr.Filter{Kinds: []int{39000, 39001, 39002, 39003}, Tags: nostr.TagMap{"d": {gid}}}) {
		if ev.PubKey != r.Server.PublicKey() {
			t.Fatalf("kind %d of %s not signed by the relay: %v", ev.Kind, gid, ev)
		}
		if ok, err := ev.CheckSignature(); !ok || err != nil {
			t.Fatalf("kind %d of %s: bad signature", ev.Kind, gid)
		}
		if _, dup := out[ev.Kind]; dup {
			t.Fatalf("kind %d of %s served twice", ev.Kind, gid)
		}
		out[ev.Kind] = ev
	}
	return out
}

// chanMembers returns the p values of the channel's 39002, sorted.
func chanMembers(t *testing.T, r *testutil.Relay, p *chanPeer, gid string) []string {
	t.Helper()
	ev, ok := chanMeta(t, r, p, gid)[39002]
	if !ok {
		t.Fatalf("no 39002 for %s", gid)
	}
	var out []string
	for _, tag := range ev.Tags {
		if len(tag) >= 2 && tag[0] == "p" {
			out = append(out, tag[1])
		}
	}
	slices.Sort(out)
	return out
}

// chanWantMembers fails unless 39002 lists exactly the given members.
func chanWantMembers(t *testing.T, r *testutil.Relay, p *chanPeer, gid, step string, members ...string) {
	t.Helper()
	want := append([]string{}, members...)
	slices.Sort(want)
	if got := chanMembers(t, r, p, gid); !slices.Equal(got, want) {
		t.Fatalf("%s: 39002 of %s lists %v, want %v", step, gid, got, want)
	}
}
