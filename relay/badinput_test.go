package relay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// Every kind of bad input gets a NIP-01 answer with a prefix, and the relay
// keeps serving the same and other clients.
func TestBadInputGetsPrefixedAnswers(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	raw := testutil.DialRaw(t, r.URL)

	t.Run("malformed JSON", func(t *testing.T) {
		raw.Send([]byte(`["EVENT", {"id": `))
		raw.Expect("NOTICE", "invalid:")
		raw.Send([]byte(`{"not":"an array"}`))
		raw.Expect("NOTICE", "invalid:")
		raw.Send([]byte(`["HELLO"]`))
		raw.Expect("NOTICE", "invalid:")
	})
	t.Run("10 MB message", func(t *testing.T) {
		raw.Send([]byte(`["EVENT",{"content":"` + strings.Repeat("x", 10<<20) + `"}]`))
		raw.Expect("NOTICE", "invalid: message too large")
	})
	t.Run("10,000 tags", func(t *testing.T) {
		tags := make(nostr.Tags, 10_000)
		for i := range tags {
			tags[i] = nostr.Tag{"t", "x"}
		}
		ev := testutil.Signed(t, r.Member, 1, "many tags", tags...)
		raw.SendJSON([]any{"EVENT", ev})
		raw.Expect("OK", "invalid: too many tags")
	})
	t.Run("bad signature", func(t *testing.T) {
		ev := testutil.Signed(t, r.Member, 1, "sig")
		ev.Sig = strings.Repeat("0", 128)
		raw.SendJSON([]any{"EVENT", ev})
		raw.Expect("OK", "invalid: bad signature")
	})
	t.Run("wrong id", func(t *testing.T) {
		ev := testutil.Signed(t, r.Member, 1, "id")
		ev.Content = "changed"
		raw.SendJSON([]any{"EVENT", ev})
		raw.Expect("OK", "invalid:")
	})
	t.Run("REQ with 100,000 ids", func(t *testing.T) {
		raw.SendJSON([]any{"REQ", "big", nostr.Filter{IDs: fakeIDs(100_000)}})
		raw.Expect("NOTICE", "invalid: message too large")
	})
	t.Run("REQ with 2,000 ids", func(t *testing.T) {
		raw.SendJSON([]any{"REQ", "many", nostr.Filter{IDs: fakeIDs(2_000)}})
		raw.Expect("CLOSED", "invalid: too many values")
	})
	t.Run("too many filters", func(t *testing.T) {
		req := []any{"REQ", "filters"}
		for range r.Config.Limits.MaxFilters + 1 {
			req = append(req, nostr.Filter{Kinds: []int{1}})
		}
		raw.SendJSON(req)
		raw.Expect("CLOSED", "invalid: too many filters")
	})
	t.Run("bad subscription id", func(t *testing.T) {
		raw.SendJSON([]any{"REQ", strings.Repeat("s", 65), nostr.Filter{}})
		raw.Expect("NOTICE", "invalid: subscription id")
	})
	t.Run("1,000 subscriptions", func(t *testing.T) {
		c := testutil.DialRaw(t, r.URL)
		c.Auth(r.Member, r.URL)
		max := r.Config.Limits.MaxSubscriptions
		for i := range 1000 {
			c.SendJSON([]any{"REQ", fmt.Sprint("s", i), nostr.Filter{Kinds: []int{1}, LimitZero: true, Limit: 0}})
		}
		eose, closed := 0, 0
		for range 1000 {
			arr := c.Next(10 * time.Second)
			switch testutil.Label(arr) {
			case "EOSE":
				eose++
			case "CLOSED":
				closed++
			}
		}
		if eose != max || closed != 1000-max {
			t.Fatalf("want %d EOSE and %d CLOSED, got %d and %d", max, 1000-max, eose, closed)
		}
	})

	// The relay still serves this client and others.
	ev := testutil.Signed(t, r.Member, 1, "still alive")
	raw.SendJSON([]any{"EVENT", ev})
	raw.Expect("OK", "")
	other := testutil.Connect(t, r.URL, r.Admin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := other.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if err != nil || len(got) != 1 {
		t.Fatalf("other client: %v, %d events", err, len(got))
	}
}

func fakeIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%064x", i)
	}
	return ids
}
