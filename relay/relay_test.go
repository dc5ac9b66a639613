package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

func TestPublishQueryRestart(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := testutil.Connect(t, r.URL, r.Member)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev := testutil.Signed(t, r.Member, 1, "hello")
	if err := c.Publish(ctx, ev); err != nil {
		t.Fatalf("publish: %v", err)
	}
	got, err := c.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if err != nil || len(got) != 1 {
		t.Fatalf("query: %v %d", err, len(got))
	}
	r.Restart(t)
	c2 := testutil.Connect(t, r.URL, r.Member)
	got, err = c2.QuerySync(ctx, nostr.Filter{IDs: []string{ev.ID}})
	if err != nil || len(got) != 1 || got[0].Content != "hello" {
		t.Fatalf("after restart: %v %v", err, got)
	}
}
