package bus

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

func TestConnClosedAuthRequiredAuthenticatesAndResends(t *testing.T) {
	r, p := proxiedRelay(t)
	ctx := testCtx(t)
	direct := dialConn(t, "ws://"+r.Config.Listen, nil, nil)
	stored := testutil.Signed(t, r.Member, 1, "stored before the REQ")
	if err := direct.Publish(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	// Holding the relay's frames keeps the challenge from us, so the REQ
	// below certainly goes out unauthenticated and is refused.
	release := p.HoldNew()
	c := dialConn(t, r.URL, r.Member, &ConnOptions{AuthWait: time.Millisecond})
	if c.Authed() != "" {
		t.Fatal("authenticated although the challenge was held back")
	}
	var log eventLog
	var mu sync.Mutex
	sends := 0
	base := memberFilter(r.Member, stored.CreatedAt, 1)
	filters := func() nostr.Filters { mu.Lock(); sends++; mu.Unlock(); return base() }
	sub, err := c.Subscribe(ctx, filters, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	release()
	waitClosed(t, "EOSE after re-sent REQ", sub.EOSE())
	if got := log.contents(); len(got) != 1 || got[0] != stored.Content {
		t.Fatalf("got %v, want the stored event", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if sends < 2 || sub.Err() != nil || c.Authed() != r.Member.PublicKey() {
		t.Fatalf("sends=%d err=%v authed=%q: want a re-sent REQ after AUTH", sends, sub.Err(), c.Authed())
	}
}

func TestConnPublishAuthRequiredRetries(t *testing.T) {
	r, p := proxiedRelay(t)
	ctx := testCtx(t)
	release := p.HoldNew()
	c := dialConn(t, r.URL, r.Member, &ConnOptions{AuthWait: time.Millisecond})
	before := p.chunks.Load()
	// A protected event (NIP-70) needs an authenticated author; the first
	// attempt certainly reaches the relay before our AUTH can.
	ev := testutil.Signed(t, r.Member, 1, "protected", nostr.Tag{"-"})
	errc := make(chan error, 1)
	go func() { errc <- c.Publish(ctx, &ev) }()
	waitFor(t, "the EVENT to reach the relay", func() bool { return p.chunks.Load() > before })
	release()
	if err := <-errc; err != nil {
		t.Fatalf("publish needing auth: %v", err)
	}
	if c.Authed() != r.Member.PublicKey() {
		t.Fatalf("authed as %q", c.Authed())
	}
}

func TestConnWaitAuthWithoutSigner(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, nil, nil)
	if err := c.WaitAuth(testCtx(t)); !errors.Is(err, ErrNoSigner) {
		t.Fatalf("WaitAuth without signer: %v", err)
	}
	if c.Authed() != "" {
		t.Fatal("authenticated without a signer")
	}
}

func TestConnSubscriptionEnds(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, r.Member, nil)
	ctx := testCtx(t)
	if err := c.WaitAuth(ctx); err != nil {
		t.Fatal(err)
	}
	filters := memberFilter(r.Member, nostr.Now()-5, 1)
	var cancelled, closed, open eventLog
	subCtx, cancel := context.WithCancel(ctx)
	s1, err := c.Subscribe(subCtx, filters, cancelled.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c.Subscribe(ctx, filters, closed.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	s3, err := c.Subscribe(ctx, filters, open.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	s2.Close()
	waitClosed(t, "cancelled subscription", s1.Done())
	if !errors.Is(s1.Err(), context.Canceled) || s2.Err() != nil {
		t.Fatalf("errors: cancelled %v, closed %v", s1.Err(), s2.Err())
	}
	ev := testutil.Signed(t, r.Member, 1, "after the ends")
	if err := c.Publish(ctx, &ev); err != nil {
		t.Fatal(err)
	}
	// One dispatcher delivers in relay order: once s3 has the event, the
	// ended subscriptions would have had it too.
	waitFor(t, "delivery to the open subscription", func() bool { return len(open.contents()) == 1 })
	if len(cancelled.contents())+len(closed.contents()) != 0 || s3.Err() != nil {
		t.Fatalf("ended subscriptions received events (or s3 failed: %v)", s3.Err())
	}
}
