package relay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/relay"
)

// A plaintext tool call is accepted with nobody listening, is not stored,
// and reaches only its author and its recipient, whatever the filter.
func TestPlaintextBusConfidentiality(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	caller, worker, other := r.Member, r.Admin, testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", other.PublicKey()); err != nil {
		t.Fatal(err)
	}
	snoop := testutil.DialRaw(t, r.URL)
	snoop.Auth(other, r.URL)
	snoopFilters := []nostr.Filter{
		{Kinds: []int{25910}},
		{Tags: nostr.TagMap{"p": {worker.PublicKey()}}},
		{Authors: []string{caller.PublicKey()}},
		{},
		{Kinds: []int{25910}, LimitZero: true},
	}
	for i, f := range snoopFilters {
		id := "s" + string(rune('a'+i))
		snoop.SendJSON([]any{"REQ", id, f})
		snoop.UntilEOSE(id)
	}
	recv := testutil.DialRaw(t, r.URL)
	recv.Auth(worker, r.URL)
	recv.SendJSON([]any{"REQ", "mine", nostr.Filter{Kinds: []int{25910}, Tags: nostr.TagMap{"p": {worker.PublicKey()}}, LimitZero: true}})
	recv.Expect("EOSE", "")

	call := testutil.Signed(t, caller, 25910, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nostr.Tag{"p", worker.PublicKey()})
	pub := testutil.DialRaw(t, r.URL)
	pub.SendJSON([]any{"EVENT", call})
	pub.Expect("OK", "")
	got := recv.Next(5 * time.Second)
	if testutil.Label(got) != "EVENT" || !strings.Contains(string(got[2]), call.ID) {
		t.Fatalf("recipient did not get the call: %s", got)
	}

	// Neither live (the subscriptions above) nor stored-phase queries after
	// the fact show the call to the snoop.
	var seen [][]json.RawMessage
	for i, f := range snoopFilters {
		f.LimitZero = false
		id := "late" + string(rune('a'+i))
		snoop.SendJSON([]any{"REQ", id, f})
		seen = append(seen, snoop.UntilEOSE(id)...)
	}
	snoop.SendJSON([]any{"REQ", "byid", nostr.Filter{IDs: []string{call.ID}}})
	seen = append(seen, snoop.UntilEOSE("byid")...)
	for _, m := range seen {
		if strings.Contains(string(m[len(m)-1]), call.ID) {
			t.Fatalf("another member saw the plaintext call: %s", m)
		}
	}
	// The recipient can still fetch it (mailbox), the author too.
	recv.SendJSON([]any{"REQ", "again", nostr.Filter{IDs: []string{call.ID}, Tags: nostr.TagMap{"p": {worker.PublicKey()}}}})
	if m := recv.Next(5 * time.Second); testutil.Label(m) != "EVENT" {
		t.Fatalf("recipient query: %s", m)
	}
}

// Gift wraps: accepted from unauthenticated clients when addressed to a
// member, delivered to whoever asks for the recipient by #p, not to others.
func TestGiftWrapRules(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	anon := testutil.DialRaw(t, r.URL)
	outsider := testutil.NewKey(t)
	toMember := wrapFor(t, r.Member.PublicKey())
	anon.SendJSON([]any{"EVENT", toMember})
	anon.Expect("OK", "")
	anon.SendJSON([]any{"EVENT", wrapFor(t, outsider.PublicKey())})
	anon.Expect("OK", "auth-required:")

	// An authenticated member may wrap to anyone (a worker answering a
	// non-member caller).
	w := testutil.DialRaw(t, r.URL)
	w.Auth(r.Member, r.URL)
	reply := wrapFor(t, outsider.PublicKey())
	watcher := testutil.DialRaw(t, r.URL)
	watcher.SendJSON([]any{"REQ", "all-wraps", nostr.Filter{Kinds: []int{1059}, LimitZero: true}})
	watcher.Expect("EOSE", "")
	caller := testutil.DialRaw(t, r.URL) // the outsider, unauthenticated, as ContextVM clients are
	caller.SendJSON([]any{"REQ", "mine", nostr.Filter{Kinds: []int{25910, 1059, 21059}, Tags: nostr.TagMap{"p": {outsider.PublicKey()}}}})
	caller.Expect("EOSE", "")
	w.SendJSON([]any{"EVENT", reply})
	w.Expect("OK", "")
	if m := caller.Next(5 * time.Second); testutil.Label(m) != "EVENT" || !strings.Contains(string(m[2]), reply.ID) {
		t.Fatalf("recipient did not get its wrap: %s", m)
	}
	// A filter that does not name the recipient gets nothing, member or not.
	watcher.SendJSON([]any{"REQ", "probe", nostr.Filter{Kinds: []int{1}, LimitZero: true}})
	if m := watcher.Next(5 * time.Second); testutil.Label(m) != "CLOSED" {
		t.Fatalf("watcher got %s", m)
	}
}

// A caller that was offline when its result was published gets it from the
// mailbox when it subscribes; one whose subscription went live before its
// AUTH completed gets plaintext results once it authenticates.
func TestMailboxReplay(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	since := nostr.Now()
	result := testutil.Signed(t, r.Admin, 25910, `{"jsonrpc":"2.0","id":1,"result":{}}`, nostr.Tag{"p", r.Member.PublicKey()}, nostr.Tag{"e", strings.Repeat("a", 64)})
	pub := testutil.DialRaw(t, r.URL)
	pub.SendJSON([]any{"EVENT", result})
	pub.Expect("OK", "")

	late := testutil.DialRaw(t, r.URL)
	challenge := late.Challenge()
	late.SendJSON([]any{"REQ", "results", nostr.Filter{Kinds: []int{25910, 1059}, Since: &since, Tags: nostr.TagMap{"p": {r.Member.PublicKey()}}}})
	late.Expect("EOSE", "") // not authenticated yet: nothing
	ev := nostr.Event{Kind: 22242, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"relay", r.URL}, {"challenge", challenge}}}
	r.Member.SignEvent(ctx5(t), &ev)
	late.SendJSON([]any{"AUTH", ev})
	late.Expect("OK", "")
	if m := late.Next(5 * time.Second); testutil.Label(m) != "EVENT" || !strings.Contains(string(m[2]), result.ID) {
		t.Fatalf("no replay after AUTH: %s", m)
	}

	fresh := testutil.DialRaw(t, r.URL)
	fresh.Auth(r.Member, r.URL)
	fresh.SendJSON([]any{"REQ", "results", nostr.Filter{Kinds: []int{25910}, Since: &since, Tags: nostr.TagMap{"p": {r.Member.PublicKey()}}}})
	if m := fresh.Next(5 * time.Second); testutil.Label(m) != "EVENT" {
		t.Fatalf("no replay to a new subscription: %s", m)
	}
	fresh.Expect("EOSE", "")
}

// Every bus event lands in the audit log, which only admins can query.
func TestAuditLog(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	call := testutil.Signed(t, r.Member, 25910, `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, nostr.Tag{"p", r.Admin.PublicKey()})
	resp := testutil.Signed(t, r.Admin, 25910, `{"jsonrpc":"2.0","id":7,"result":{}}`, nostr.Tag{"p", r.Member.PublicKey()}, nostr.Tag{"e", call.ID})
	wrap := wrapFor(t, r.Admin.PublicKey())
	pub := testutil.DialRaw(t, r.URL)
	for _, ev := range []nostr.Event{call, resp, wrap} {
		pub.SendJSON([]any{"EVENT", ev})
		pub.Expect("OK", "")
	}
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Member, "listauditevents"); err == nil {
		t.Fatal("non-admin read the audit log")
	}
	raw, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "listauditevents", map[string]any{"kinds": []int{25910, 1059}})
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Event    nostr.Event `json:"event"`
		Envelope bool        `json:"envelope"`
	}
	if err := json.Unmarshal(raw, &recs); err != nil || len(recs) != 3 {
		t.Fatalf("audit: %v, %d records: %s", err, len(recs), raw)
	}
	byID := map[string]bool{}
	for _, rec := range recs {
		byID[rec.Event.ID] = true
		if rec.Event.Kind == 25910 {
			if ok, _ := rec.Event.CheckSignature(); !ok || rec.Envelope {
				t.Fatalf("plaintext record must be whole and verify: %+v", rec)
			}
		} else if !rec.Envelope || rec.Event.Content != "" {
			t.Fatalf("gift wrap must be kept as envelope only: %+v", rec)
		}
	}
	if !byID[call.ID] || !byID[resp.ID] || !byID[wrap.ID] {
		t.Fatalf("missing records: %v", byID)
	}
}

// A subscriber that stops reading never delays the publisher or a healthy
// subscriber; it is dropped once its queue is full.
func TestStuckSubscriberIsDropped(t *testing.T) {
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1e6, 1e6
		c.Limits.IPEventsPerSecond, c.Limits.IPEventsBurst = 1e6, 1e6
		c.Limits.MaxContentBytes = 200_000 // ephemeral events are not stored
	})
	stuck := testutil.DialRaw(t, r.URL)
	stuck.Auth(r.Member, r.URL)
	stuck.SendJSON([]any{"REQ", "firehose", nostr.Filter{Kinds: []int{20001}}})
	stuck.Expect("EOSE", "")
	healthy := testutil.DialRaw(t, r.URL)
	healthy.Auth(r.Admin, r.URL)
	healthy.SendJSON([]any{"REQ", "firehose", nostr.Filter{Kinds: []int{20001}}})
	healthy.Expect("EOSE", "")

	pub := testutil.DialRaw(t, r.URL)
	big := strings.Repeat("x", 200_000)
	const n = 400 // 80 MB: more than the stuck subscriber's queue and socket buffers
	for i := range n {
		ev := testutil.Signed(t, r.Member, 20001, big, nostr.Tag{"i", string(rune('0' + i%10))})
		pub.SendJSON([]any{"EVENT", ev})
		pub.ExpectAccepted()
		if m := healthy.Next(10 * time.Second); testutil.Label(m) != "EVENT" {
			t.Fatalf("healthy subscriber got %s", m)
		}
	}
	if !stuck.Closed(10 * time.Second) {
		t.Fatal("stuck subscriber was not dropped")
	}
}

// wrapFor builds a kind-1059 event signed by a throwaway key, addressed to
// recipient (its content is opaque to the relay).
func wrapFor(t *testing.T, recipient string) nostr.Event {
	return testutil.Signed(t, testutil.NewKey(t), 1059, "opaque-ciphertext", nostr.Tag{"p", recipient})
}

// The relay keeps a NIP-43 membership list current and pushes it live, so
// workers can follow membership.
func TestMembershipListFollowsChanges(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	w := testutil.DialRaw(t, r.URL)
	w.Auth(r.Member, r.URL)
	w.SendJSON([]any{"REQ", "members", nostr.Filter{Kinds: []int{13534}, Authors: []string{r.Server.PublicKey()}}})
	first := w.UntilEOSE("members")
	if len(first) != 1 || strings.Contains(string(first[0][2]), "newbie") {
		t.Fatalf("initial list: %s", first)
	}
	newbie := testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", newbie.PublicKey()); err != nil {
		t.Fatal(err)
	}
	m := w.Next(5 * time.Second)
	var ev nostr.Event
	if testutil.Label(m) != "EVENT" || json.Unmarshal(m[2], &ev) != nil {
		t.Fatalf("no live update: %s", m)
	}
	if ok, _ := ev.CheckSignature(); !ok || ev.PubKey != r.Server.PublicKey() || ev.Tags.FindWithValue("member", newbie.PublicKey()) == nil || len(ev.Tags[0]) != 1 || ev.Tags[0][0] != "-" {
		t.Fatalf("bad membership list: %+v", ev)
	}
}
