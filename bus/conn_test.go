package bus

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// guard is the failure guard for anything a test waits for; the tests
// never depend on how fast something happens, only that it does.
const guard = 20 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

func dialConn(t *testing.T, url string, key signer.Signer, opts *ConnOptions) *Conn {
	t.Helper()
	if opts == nil {
		opts = &ConnOptions{}
	}
	opts.Signer, opts.Logger = key, testutil.Logger(t)
	c, err := Dial(testCtx(t), url, opts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// eventLog records what onEvent received, in order.
type eventLog struct {
	mu  sync.Mutex
	evs []*nostr.Event
}

func (l *eventLog) add(ev *nostr.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *eventLog) contents() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.evs))
	for i, ev := range l.evs {
		out[i] = ev.Content
	}
	return out
}

// waitFor polls cond until it holds, failing the test after guard.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func memberFilter(key signer.Signer, since nostr.Timestamp, kinds ...int) func() nostr.Filters {
	return func() nostr.Filters {
		return nostr.Filters{{Kinds: kinds, Authors: []string{key.PublicKey()}, Since: &since}}
	}
}

func TestConnRoundTripOrdered(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, r.Member, nil)
	ctx := testCtx(t)
	if err := c.WaitAuth(ctx); err != nil {
		t.Fatal(err)
	}
	if got := c.Authed(); got != r.Member.PublicKey() {
		t.Fatalf("authed as %q, want the member", got)
	}
	var log eventLog
	since := nostr.Now() - 5
	// Two filters: ordering must hold across the filters of a subscription.
	filters := func() nostr.Filters {
		return nostr.Filters{
			{Kinds: []int{1}, Authors: []string{r.Member.PublicKey()}, Since: &since},
			{Kinds: []int{7}, Authors: []string{r.Member.PublicKey()}, Since: &since},
		}
	}
	sub, err := c.Subscribe(ctx, filters, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "EOSE", sub.EOSE())
	var want []string
	for i := range 80 { // below the relay's per-author burst
		ev := testutil.Signed(t, r.Member, []int{1, 7}[i%2], fmt.Sprint("msg ", i))
		if err := c.Publish(ctx, &ev); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		want = append(want, ev.Content)
	}
	waitFor(t, "all events", func() bool { return len(log.contents()) >= len(want) })
	if got := log.contents(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("delivery order differs:\n got %v\nwant %v", got, want)
	}
	if sub.Err() != nil {
		t.Fatalf("subscription error: %v", sub.Err())
	}
}

func TestConnPublishRejectedRestricted(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := dialConn(t, r.URL, r.Member, nil)
	ev := testutil.Signed(t, testutil.NewKey(t), 1, "from a stranger")
	err := c.Publish(testCtx(t), &ev)
	var rej *RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("want *RejectedError, got %v", err)
	}
	if rej.Prefix() != "restricted" {
		t.Fatalf("want prefix restricted, got %q (%v)", rej.Prefix(), err)
	}
	// A refusal leaves the connection usable.
	ok := testutil.Signed(t, r.Member, 1, "from the member")
	if err := c.Publish(testCtx(t), &ok); err != nil {
		t.Fatalf("member publish after a refusal: %v", err)
	}
}

func TestRejectedErrorPrefix(t *testing.T) {
	for reason, want := range map[string]string{
		"auth-required: please authenticate": "auth-required",
		"rate-limited:":                      "rate-limited",
		"no prefix here":                     "",
		"two words: not a prefix":            "",
		": empty":                            "",
	} {
		if got := (&RejectedError{Reason: reason}).Prefix(); got != want {
			t.Errorf("Prefix(%q) = %q, want %q", reason, got, want)
		}
	}
}

// proxiedRelay starts a relay whose public URL is a test proxy in front
// of it, so that AUTH through the proxy names the right relay.
func proxiedRelay(t *testing.T) (*testutil.Relay, *connProxy) {
	p := newConnProxy(t)
	r := testutil.StartRelay(t, func(cfg *config.Config) { cfg.PublicURL = "http://" + p.Addr() })
	p.mu.Lock()
	p.target = r.Config.Listen
	p.mu.Unlock()
	return r, p
}

func TestConnCloseStopsEverything(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	before := runtime.NumGoroutine()
	c, err := Dial(testCtx(t), r.URL, &ConnOptions{Signer: r.Member, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	var log eventLog
	sub, err := c.Subscribe(ctx, memberFilter(r.Member, nostr.Now()-5, 1), log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := testutil.Signed(t, r.Member, 1, "before close")
	if err := c.Publish(ctx, &ev); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "event", func() bool { return len(log.contents()) == 1 })
	c.Close()
	waitClosed(t, "Done", c.Done())
	waitClosed(t, "subscription end", sub.Done())
	if !errors.Is(sub.Err(), ErrClosed) {
		t.Fatalf("subscription error %v, want ErrClosed", sub.Err())
	}
	if err := c.Publish(ctx, &ev); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v", err)
	}
	if _, err := c.Subscribe(ctx, memberFilter(r.Member, 0, 1), log.add, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after close: %v", err)
	}
	waitFor(t, "goroutines to settle", func() bool { return runtime.NumGoroutine() <= before })
}
