package relay_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// NIP-09: authors delete their own events; others' deletions are refused;
// a deleted event cannot be published again.
func TestDeletion(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	c := testutil.Connect(t, r.URL, r.Member)
	ev := testutil.Signed(t, r.Member, 1, "regret")
	if err := c.Publish(ctx, ev); err != nil {
		t.Fatal(err)
	}
	admin := testutil.Connect(t, r.URL, r.Admin)
	err := admin.Publish(ctx, testutil.Signed(t, r.Admin, 5, "", nostr.Tag{"e", ev.ID}))
	if err == nil || !strings.Contains(err.Error(), "blocked:") {
		t.Fatalf("deleting another's event: want blocked:, got %v", err)
	}
	if err := c.Publish(ctx, testutil.Signed(t, r.Member, 5, "", nostr.Tag{"e", ev.ID})); err != nil {
		t.Fatalf("own deletion: %v", err)
	}
	got, _ := c.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if len(got) != 0 {
		t.Fatal("deleted event still served")
	}
	if err := c.Publish(ctx, ev); err == nil {
		t.Fatal("deleted event accepted again")
	}
}

// NIP-40: expired events are refused; stored events past their expiry are
// no longer served.
func TestExpiration(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	c := testutil.Connect(t, r.URL, r.Member)
	past := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	err := c.Publish(ctx, testutil.Signed(t, r.Member, 1, "old news", nostr.Tag{"expiration", past}))
	if err == nil || !strings.Contains(err.Error(), "invalid: event has expired") {
		t.Fatalf("want expired refusal, got %v", err)
	}
	soon := strconv.FormatInt(time.Now().Add(1100*time.Millisecond).Unix(), 10)
	ev := testutil.Signed(t, r.Member, 1, "fleeting", nostr.Tag{"expiration", soon})
	if err := c.Publish(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}}); len(got) != 1 {
		t.Fatal("unexpired event not served")
	}
	time.Sleep(2100 * time.Millisecond)
	if got, _ := c.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}}); len(got) != 0 {
		t.Fatal("expired event still served")
	}
}

// NIP-70: a protected event is accepted only from its authenticated author.
func TestProtectedEvents(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	ctx := ctx5(t)
	ev := testutil.Signed(t, r.Member, 1, "mine only", nostr.Tag{"-"})
	anon := testutil.Connect(t, r.URL, nil)
	if err := anon.Publish(ctx, ev); err == nil || !strings.Contains(err.Error(), "auth-required:") {
		t.Fatalf("unauthenticated: want auth-required:, got %v", err)
	}
	other := testutil.Connect(t, r.URL, r.Admin)
	if err := other.Publish(ctx, ev); err == nil || !strings.Contains(err.Error(), "blocked:") {
		t.Fatalf("other author: want blocked:, got %v", err)
	}
	own := testutil.Connect(t, r.URL, r.Member)
	if err := own.Publish(ctx, ev); err != nil {
		t.Fatalf("author: %v", err)
	}
}

// Per-pubkey and per-IP token buckets answer rate-limited: and refuse
// without consuming more budget.
func TestRateLimits(t *testing.T) {
	t.Run("pubkey", func(t *testing.T) {
		r := testutil.StartRelay(t, func(c *config.Config) {
			c.Limits.EventsPerSecond, c.Limits.EventsBurst = 0.001, 3
		})
		raw := testutil.DialRaw(t, r.URL)
		for i := range 3 {
			raw.SendJSON([]any{"EVENT", testutil.Signed(t, r.Member, 1, strconv.Itoa(i))})
			raw.Expect("OK", "")
		}
		raw.SendJSON([]any{"EVENT", testutil.Signed(t, r.Member, 1, "one too many")})
		raw.Expect("OK", "rate-limited:")
		// Another author is unaffected.
		raw.SendJSON([]any{"EVENT", testutil.Signed(t, r.Admin, 1, "admin")})
		raw.Expect("OK", "")
	})
	t.Run("ip", func(t *testing.T) {
		r := testutil.StartRelay(t, func(c *config.Config) {
			c.Limits.IPEventsPerSecond, c.Limits.IPEventsBurst = 0.001, 2
		})
		raw := testutil.DialRaw(t, r.URL)
		for i := range 2 {
			raw.SendJSON([]any{"EVENT", testutil.Signed(t, r.Member, 1, strconv.Itoa(i))})
			raw.Expect("OK", "")
		}
		bad := testutil.Signed(t, r.Admin, 1, "x")
		bad.Sig = strings.Repeat("0", 128) // refused before its signature is even checked
		raw.SendJSON([]any{"EVENT", bad})
		raw.Expect("OK", "rate-limited:")
	})
}

func TestNIP11(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	info := r.Server.Info()
	if info.PubKey != r.Server.PublicKey() || info.Limitation.MaxSubscriptions != r.Config.Limits.MaxSubscriptions ||
		!info.Limitation.RestrictedWrites {
		t.Fatalf("NIP-11 document does not reflect the config: %+v", info.Limitation)
	}
}

// NIP-42: the relay tag must name the configured public URL (not whatever
// Host the client used), the challenge must be this connection's, and
// created_at within ten minutes.
func TestAuthChecks(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	cases := []struct {
		name      string
		relayURL  string
		challenge string
		age       time.Duration
		want      string
	}{
		{"wrong relay", "ws://evil.example", "", 0, "invalid: AUTH relay tag"},
		{"wrong challenge", r.URL, "not-the-challenge", 0, "invalid: AUTH challenge"},
		{"stale", r.URL, "", 11 * time.Minute, "invalid: AUTH event created_at"},
		{"good", r.URL + "/", "", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := testutil.DialRaw(t, r.URL)
			challenge := raw.Challenge()
			if tc.challenge != "" {
				challenge = tc.challenge
			}
			ev := nostr.Event{Kind: 22242, CreatedAt: nostr.Timestamp(time.Now().Add(-tc.age).Unix()),
				Tags: nostr.Tags{{"relay", tc.relayURL}, {"challenge", challenge}}}
			r.Member.SignEvent(ctx5(t), &ev)
			raw.SendJSON([]any{"AUTH", ev})
			raw.Expect("OK", tc.want)
		})
	}
}

// A filter is a conjunction even with ids: the store answers ids alone, the
// relay applies the rest.
func TestIDsFilterKeepsOtherConditions(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	ev := testutil.Signed(t, r.Member, 1, "a note")
	c.SendJSON([]any{"EVENT", ev})
	c.ExpectAccepted()
	c.SendJSON([]any{"REQ", "k", nostr.Filter{IDs: []string{ev.ID}, Kinds: []int{30078}}})
	if got := c.UntilEOSE("k"); len(got) != 0 {
		t.Fatalf("kind-30078 filter returned the kind-1 event: %s", got)
	}
	c.SendJSON([]any{"REQ", "a", nostr.Filter{IDs: []string{ev.ID}, Authors: []string{r.Admin.PublicKey()}}})
	if got := c.UntilEOSE("a"); len(got) != 0 {
		t.Fatalf("authors filter ignored: %s", got)
	}
}
