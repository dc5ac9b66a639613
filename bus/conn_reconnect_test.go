package bus

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

func TestConnReconnectResubscribesAndDedupes(t *testing.T) {
	r, p := proxiedRelay(t)
	ctx := testCtx(t)
	connects := make(chan struct{}, 16)
	c := dialConn(t, r.URL, r.Member, &ConnOptions{OnConnect: func() { connects <- struct{}{} }})
	<-connects // the first connection
	direct := dialConn(t, "ws://"+r.Config.Listen, nil, nil)

	var log eventLog
	var sends atomic.Int32
	since := nostr.Now() - 5
	filters := func() nostr.Filters {
		sends.Add(1)
		return memberFilter(r.Member, since, 1)()
	}
	sub, err := c.Subscribe(ctx, filters, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "EOSE", sub.EOSE())
	publish := func(via *Conn, content string) {
		t.Helper()
		ev := testutil.Signed(t, r.Member, 1, content)
		if err := via.Publish(ctx, &ev); err != nil {
			t.Fatalf("publish %q: %v", content, err)
		}
	}
	publish(direct, "A before the drop")
	waitFor(t, "A", func() bool { return len(log.contents()) == 1 })

	// Cut the connection and keep the relay unreachable while B is stored.
	p.SetRefuse(true)
	p.DropAll()
	waitFor(t, "disconnect", func() bool { return c.Authed() == "" })
	publish(direct, "B while disconnected")
	p.SetRefuse(false)
	waitClosed(t, "reconnect", chanOf(connects))

	// The re-sent REQ replays A and B from the store: only B is new.
	waitFor(t, "B", func() bool { return len(log.contents()) >= 2 })
	if c.Authed() != r.Member.PublicKey() {
		t.Fatalf("not re-authenticated after reconnect: %q", c.Authed())
	}
	if n := sends.Load(); n < 2 {
		t.Fatalf("filters evaluated %d times, want a re-evaluation on reconnect", n)
	}
	publish(c, "C after the reconnect")
	waitFor(t, "C", func() bool { return len(log.contents()) >= 3 })
	want := "[A before the drop B while disconnected C after the reconnect]"
	if got := fmt.Sprint(log.contents()); got != want {
		t.Fatalf("got %s, want %s (each once, in order)", got, want)
	}
}

// chanOf turns one receive from ch into a closed channel for waitClosed.
func chanOf(ch <-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() { <-ch; close(out) }()
	return out
}

func TestConnPublishDisconnectedBeforeOK(t *testing.T) {
	r, p := proxiedRelay(t)
	ctx := testCtx(t)
	c := dialConn(t, r.URL, r.Member, nil)
	if err := c.WaitAuth(ctx); err != nil {
		t.Fatal(err)
	}
	// The EVENT frame is eaten and the connection closed: no OK can come.
	p.SwallowNext()
	ev := testutil.Signed(t, r.Member, 1, "lost in transit")
	err := c.Publish(ctx, &ev)
	if !errors.Is(err, ErrDisconnected) {
		t.Fatalf("publish over a dying connection: got %v, want ErrDisconnected", err)
	}
	// The caller's retry goes out on the next connection and succeeds.
	if err := c.Publish(ctx, &ev); err != nil {
		t.Fatalf("publish after reconnect: %v", err)
	}
}
