package bus

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// flappingFront is a loopback TCP front for a relay that records the time
// of every connection attempt. While down it accepts and closes at once
// (a relay that is gone, or a proxy in front of none); while up it pipes
// to the relay.
type flappingFront struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	down     bool
	attempts []time.Time // connections accepted while down
	conns    []net.Conn
}

func newFlappingFront(t *testing.T) *flappingFront {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &flappingFront{ln: ln}
	go f.accept()
	t.Cleanup(func() { ln.Close(); f.setDown(true) })
	return f
}

func (f *flappingFront) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		down := f.down
		if down {
			f.attempts = append(f.attempts, time.Now())
		} else {
			f.conns = append(f.conns, c)
		}
		f.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go f.pipe(c)
	}
}

func (f *flappingFront) pipe(c net.Conn) {
	defer c.Close()
	f.mu.Lock()
	target := f.target
	f.mu.Unlock()
	s, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.conns = append(f.conns, s)
	f.mu.Unlock()
	defer s.Close()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
}

// setDown switches the front; going down also cuts every open connection.
func (f *flappingFront) setDown(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = v
	if v {
		for _, c := range f.conns {
			c.Close()
		}
		f.conns = nil
		f.attempts = nil
	}
}

func (f *flappingFront) attemptTimes() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.attempts...)
}

// While the relay is unreachable the Conn retries with a delay that grows
// from MinBackoff and stops growing at MaxBackoff; once the relay is back
// the Conn reconnects and re-sends its subscription.
func TestConnReconnectBackoffGrowsAndIsCapped(t *testing.T) {
	f := newFlappingFront(t)
	r := testutil.StartRelay(t, func(cfg *config.Config) { cfg.PublicURL = "http://" + f.ln.Addr().String() })
	f.mu.Lock()
	f.target = r.Config.Listen
	f.mu.Unlock()
	ctx := testCtx(t)
	const minB, maxB = 10 * time.Millisecond, 640 * time.Millisecond
	connects := make(chan struct{}, 16)
	c := dialConn(t, "ws://"+f.ln.Addr().String(), r.Member, &ConnOptions{MinBackoff: minB, MaxBackoff: maxB,
		OnConnect: func() { connects <- struct{}{} }})
	<-connects
	direct := dialConn(t, "ws://"+r.Config.Listen, r.Member, nil)

	var log eventLog
	sub, err := c.Subscribe(ctx, memberFilter(r.Member, nostr.Now()-5, 1), log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "EOSE", sub.EOSE())

	f.setDown(true)
	waitFor(t, "disconnect", func() bool { return c.Authed() == "" })
	ev := testutil.Signed(t, r.Member, 1, "stored while the relay was unreachable")
	if err := direct.Publish(ctx, &ev); err != nil {
		t.Fatal(err)
	}

	// Jittered delays are in [d/2, d) for d = 20, 40, ... 640, 640 ms: the
	// first 15 attempts take about 7 s at most. Uncapped doubling would
	// need minutes for them, and the guard fails the test long before.
	const n = 15
	waitFor(t, fmt.Sprintf("%d reconnection attempts", n), func() bool { return len(f.attemptTimes()) >= n })
	at := f.attemptTimes()[:n]
	gap := func(i int) time.Duration { return at[i+1].Sub(at[i]) }
	early := gap(0) + gap(1) + gap(2)      // nominally 35–70 ms
	late := gap(n-4) + gap(n-3) + gap(n-2) // nominally 960–1920 ms
	for i := range n - 1 {
		t.Logf("gap %2d: %v", i, gap(i).Round(time.Millisecond))
	}
	if late < 4*early {
		t.Fatalf("retry interval did not grow: first gaps %v, last gaps %v", early, late)
	}
	if late < 3*maxB/2 {
		t.Fatalf("retry interval did not reach MaxBackoff: last three gaps %v in all", late)
	}

	f.setDown(false)
	waitClosed(t, "reconnect", chanOf(connects))
	// The re-sent subscription replays the event stored meanwhile, then
	// delivers what is published after it, each once.
	waitFor(t, "the stored event on the re-sent subscription", func() bool { return len(log.contents()) >= 1 })
	ev2 := testutil.Signed(t, r.Member, 1, "published after the reconnection")
	if err := direct.Publish(ctx, &ev2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the live event on the re-sent subscription", func() bool { return len(log.contents()) >= 2 })
	if got := fmt.Sprint(log.contents()); got != fmt.Sprint([]string{ev.Content, ev2.Content}) {
		t.Fatalf("subscription after reconnect delivered %s", got)
	}
}
