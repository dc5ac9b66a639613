package relay_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
)

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestNonMemberPublishIsRestricted(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	stranger := testutil.NewKey(t)
	c := testutil.Connect(t, r.URL, stranger)
	err := c.Publish(ctx5(t), testutil.Signed(t, stranger, 1, "let me in"))
	if err == nil || !strings.Contains(err.Error(), "restricted:") {
		t.Fatalf("want restricted:, got %v", err)
	}
}

// Unauthenticated readers get no member events (and EOSE); after AUTH as a
// member the same query returns them, and live events arrive.
func TestReadRequiresMemberAuth(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	pub := testutil.Connect(t, r.URL, r.Member)
	ev := testutil.Signed(t, r.Member, 1, "members only")
	if err := pub.Publish(ctx, ev); err != nil {
		t.Fatal(err)
	}

	raw := testutil.DialRaw(t, r.URL)
	raw.SendJSON([]any{"REQ", "ping", nostr.Filter{Limit: 10}})
	raw.Expect("EOSE", "") // a liveness ping gets nothing private, but its EOSE
	raw.SendJSON([]any{"REQ", "notes", nostr.Filter{Kinds: []int{1}}})
	raw.Expect("CLOSED", "auth-required:")

	reader := testutil.Connect(t, r.URL, nil)
	got, _ := reader.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if len(got) != 0 {
		t.Fatalf("unauthenticated reader got %d events", len(got))
	}
	if err := testutil.Auth(ctx, reader, r.Admin); err != nil {
		t.Fatal(err)
	}
	got, err := reader.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if err != nil || len(got) != 1 {
		t.Fatalf("after AUTH: %v, %d events", err, len(got))
	}
}

// An admin adds a member over NIP-86: effective at once and after restart.
// A non-admin's call is refused; a banned member's open subscription stops.
func TestNIP86Membership(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	newbie := testutil.NewKey(t)
	c := testutil.Connect(t, r.URL, newbie)
	if err := c.Publish(ctx, testutil.Signed(t, newbie, 1, "before")); err == nil {
		t.Fatal("non-member publish accepted")
	}

	_, err := relay.Manage(ctx, r.HTTPURL, r.Member, "allowpubkey", newbie.PublicKey(), "hired")
	var me *relay.ManagementError
	if !errors.As(err, &me) || me.Status != 403 {
		t.Fatalf("non-admin call: want 403, got %v", err)
	}
	if _, err := relay.Manage(ctx, r.HTTPURL, r.Admin, "allowpubkey", newbie.NPub(), "hired"); err != nil {
		t.Fatalf("allowpubkey: %v", err)
	}
	if err := c.Publish(ctx, testutil.Signed(t, newbie, 1, "after")); err != nil {
		t.Fatalf("same connection after allow: %v", err)
	}

	r.Restart(t)
	c = testutil.Connect(t, r.URL, newbie)
	if err := c.Publish(ctx, testutil.Signed(t, newbie, 1, "after restart")); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	list, err := relay.Manage(ctx, r.HTTPURL, r.Admin, "listallowedpubkeys")
	if err != nil || !strings.Contains(string(list), newbie.PublicKey()) {
		t.Fatalf("listallowedpubkeys: %v %s", err, list)
	}

	sub, err := c.Subscribe(ctx, nostr.Filters{{Kinds: []int{1}, LimitZero: true}})
	if err != nil {
		t.Fatal(err)
	}
	<-sub.EndOfStoredEvents
	if _, err := relay.Manage(ctx, r.HTTPURL, r.Admin, "banpubkey", newbie.PublicKey(), "left"); err != nil {
		t.Fatalf("banpubkey: %v", err)
	}
	select {
	case reason := <-sub.ClosedReason:
		if !strings.HasPrefix(reason, "restricted:") {
			t.Fatalf("closed with %q", reason)
		}
	case <-ctx.Done():
		t.Fatal("banned member's subscription was not closed")
	}
	admin := testutil.Connect(t, r.URL, r.Admin)
	if err := admin.Publish(ctx, testutil.Signed(t, r.Admin, 1, "after the ban")); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-sub.Events:
		if ok {
			t.Fatalf("banned member received %s", ev.Content)
		}
	case <-time.After(200 * time.Millisecond):
	}
	err = c.Publish(ctx, testutil.Signed(t, newbie, 1, "banned"))
	if err == nil || !strings.Contains(err.Error(), "blocked:") {
		t.Fatalf("banned publish: want blocked:, got %v", err)
	}
}

func TestNIP86RefusesBadTokens(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	other := strings.Replace(r.HTTPURL, "127.0.0.1", "localhost", 1)
	_, err := relay.Manage(ctx, other, r.Admin, "listallowedpubkeys")
	var me *relay.ManagementError
	if !errors.As(err, &me) || me.Status != 401 {
		t.Fatalf("token for another URL: want 401, got %v", err)
	}
}
