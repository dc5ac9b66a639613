package bus

import (
	"errors"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// Query returns the stored events once, each event once even when two
// filters match it, and ends its subscription.
func TestConnQueryStored(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, r.Member, nil)
	var want []string
	for _, text := range []string{"one", "two", "three"} {
		ev := testutil.Signed(t, r.Member, 1, text)
		if err := c.Publish(testCtx(t), &ev); err != nil {
			t.Fatal(err)
		}
		want = append(want, ev.ID)
	}
	byAuthor := nostr.Filter{Kinds: []int{1}, Authors: []string{r.Member.PublicKey()}}
	byID := nostr.Filter{IDs: want[:1]}
	evs, err := c.Query(testCtx(t), nostr.Filters{byAuthor, byID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, ev.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("query returned %v, want %v", got, want)
	}
	c.mu.Lock()
	open := len(c.subs)
	c.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d subscriptions left open after Query", open)
	}
}

// A relay's CLOSED is Query's error, as the relay's *RejectedError.
func TestConnQueryClosedByRelay(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	outsider := testutil.NewKey(t)
	c := dialConn(t, r.URL, outsider, nil)
	evs, err := c.Query(testCtx(t), nostr.Filters{{Kinds: []int{1}}})
	var rej *RejectedError
	if !errors.As(err, &rej) || rej.Prefix() != "restricted" {
		t.Fatalf("got %v (%d events), want a restricted: refusal", err, len(evs))
	}
}

// Query on a closed Conn fails at once.
func TestConnQueryAfterClose(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, r.Member, nil)
	c.Close()
	if _, err := c.Query(testCtx(t), nostr.Filters{{Kinds: []int{1}}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}
