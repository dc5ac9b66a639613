package relay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
)

// A private channel: created by a member, another member put in, messages
// and a threaded reply; a workspace member outside the channel sees none of
// it with any filter, stored or live; the relay-signed metadata matches.
func TestPrivateChannel(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	outsider := testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", outsider.PublicKey()); err != nil {
		t.Fatal(err)
	}
	snoop := testutil.DialRaw(t, r.URL)
	snoop.Auth(outsider, r.URL)
	live := []nostr.Filter{{Kinds: []int{9}}, {Tags: nostr.TagMap{"h": {"secret"}}}, {}, {Authors: []string{r.Member.PublicKey()}}}
	for i, f := range live {
		id := "live" + string(rune('a'+i))
		f.LimitZero = true
		snoop.SendJSON([]any{"REQ", id, f})
		snoop.UntilEOSE(id)
	}

	owner := testutil.DialRaw(t, r.URL)
	owner.Auth(r.Member, r.URL)
	publish := func(ev nostr.Event, prefix string) {
		t.Helper()
		owner.SendJSON([]any{"EVENT", ev})
		if prefix == "" {
			owner.ExpectAccepted()
		} else {
			owner.Expect("OK", prefix)
		}
	}
	publish(testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "secret"}, nostr.Tag{"private"}, nostr.Tag{"closed"}, nostr.Tag{"name", "Secret plans"}), "")
	publish(testutil.Signed(t, r.Member, 9000, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", r.Admin.PublicKey(), "member"}), "")
	root := testutil.Signed(t, r.Member, 9, "the plan", nostr.Tag{"h", "secret"})
	publish(root, "")
	publish(testutil.Signed(t, r.Admin, 9, "agreed", nostr.Tag{"h", "secret"}, nostr.Tag{"e", root.ID, "", "root"}), "")
	publish(testutil.Signed(t, outsider, 9, "let me in", nostr.Tag{"h", "secret"}), "restricted:")

	// The outsider's live subscriptions received nothing of the channel,
	// and stored queries return nothing either.
	var seen [][]json.RawMessage
	for i, f := range live {
		id := "stored" + string(rune('a'+i))
		snoop.SendJSON([]any{"REQ", id, f})
		seen = append(seen, snoop.UntilEOSE(id)...)
	}
	for _, m := range seen {
		if strings.Contains(string(m[len(m)-1]), `"secret"`) {
			t.Fatalf("outsider saw channel content: %s", m)
		}
	}

	admin := testutil.DialRaw(t, r.URL)
	admin.Auth(r.Admin, r.URL)
	admin.SendJSON([]any{"REQ", "thread", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"secret"}}}})
	if got := admin.UntilEOSE("thread"); len(got) != 2 {
		t.Fatalf("member sees %d messages, want 2", len(got))
	}
	admin.SendJSON([]any{"REQ", "meta", nostr.Filter{Kinds: []int{39000, 39002}, Tags: nostr.TagMap{"d": {"secret"}}}})
	meta := admin.UntilEOSE("meta")
	var members *nostr.Event
	for _, m := range meta {
		var ev nostr.Event
		json.Unmarshal(m[2], &ev)
		if ev.PubKey != r.Server.PublicKey() {
			t.Fatalf("metadata not signed by the relay: %s", m)
		}
		if ev.Kind == 39002 {
			members = &ev
		}
	}
	if members == nil || members.Tags.FindWithValue("p", r.Admin.PublicKey()) == nil || members.Tags.FindWithValue("p", r.Member.PublicKey()) == nil {
		t.Fatalf("39002 does not list both members: %v", meta)
	}

	// Removing the admin from the channel stops their delivery at once.
	admin.SendJSON([]any{"REQ", "live-after", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"secret"}}, LimitZero: true}})
	admin.UntilEOSE("live-after")
	publish(testutil.Signed(t, r.Member, 9001, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", r.Admin.PublicKey()}), "")
	publish(testutil.Signed(t, r.Member, 9, "after the removal", nostr.Tag{"h", "secret"}), "")
	admin.SendJSON([]any{"REQ", "probe", nostr.Filter{IDs: []string{root.ID}}})
	for _, m := range admin.UntilEOSE("probe") {
		if strings.Contains(string(m[len(m)-1]), "after the removal") || strings.Contains(string(m[len(m)-1]), root.ID) {
			t.Fatalf("removed member still receives: %s", m)
		}
	}
	_ = time.Second
}

// Channel state survives a restart: it is rebuilt from the stored log.
func TestChannelsSurviveRestart(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := testutil.DialRaw(t, r.URL)
	owner.Auth(r.Member, r.URL)
	// Put, remove and put again, all in one second: only the recorded order
	// of application says the admin ends up a member.
	for _, ev := range []nostr.Event{
		testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "ops"}, nostr.Tag{"private"}),
		testutil.Signed(t, r.Member, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", r.Admin.PublicKey()}),
		testutil.Signed(t, r.Member, 9001, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", r.Admin.PublicKey()}),
		testutil.Signed(t, r.Member, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", r.Admin.PublicKey(), "member"}),
	} {
		owner.SendJSON([]any{"EVENT", ev})
		owner.ExpectAccepted()
	}
	r.Restart(t)
	admin := testutil.DialRaw(t, r.URL)
	admin.Auth(r.Admin, r.URL)
	admin.SendJSON([]any{"EVENT", testutil.Signed(t, r.Admin, 9, "still a member", nostr.Tag{"h", "ops"})})
	admin.ExpectAccepted()
	stranger := testutil.DialRaw(t, r.URL)
	stranger.Auth(r.Member, r.URL)
	stranger.SendJSON([]any{"REQ", "ops", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"ops"}}}})
	if got := stranger.UntilEOSE("ops"); len(got) != 1 {
		t.Fatalf("after restart: %d messages", len(got))
	}
}
