package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// TestPipelinedOKsComeBackInEventOrder sends 300 EVENTs on one websocket
// without waiting for any OK — stored plain events, addressable ones
// (written on their own, between the batched runs), ephemeral ones,
// deletions, a republished event, and events refused for a bad signature,
// a wrong id, oversized content, a future created_at, a non-member author
// and a protected tag on an unauthenticated connection — and checks that
// the i-th OK answers the i-th EVENT, with its id, its true/false and its
// reason.
//
// Why this fails if the relay answered out of order: the verdicts become
// known at very different times. A refused or ephemeral event is answered
// the moment the read loop has looked at it, while a stored one is
// answered only once the group committer has synced its batch, ~a
// millisecond and many messages later; and 300 pipelined events span
// several batches. A relay that sent each OK as soon as it was known (an
// OK per completed write, a goroutine per verdict, refusals answered
// directly) would let the refusals overtake the stored events before them
// and later batches overtake earlier ones, and the positional comparison
// below fails at the first overtaken EVENT. The order comes from the
// connection's ackLoop (ingest.go), which resolves the verdicts strictly
// in arrival order: the committer completing a batch's writes in any order
// does not change it.
func TestPipelinedOKsComeBackInEventOrder(t *testing.T) {
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1e6, 1e6
		c.Limits.IPEventsPerSecond, c.Limits.IPEventsBurst = 1e6, 1e6
	})
	stranger := testutil.NewKey(t)
	const n = 300
	type sent struct {
		ev     nostr.Event
		ok     bool
		prefix string // the reason must start with this ("" means empty)
	}
	evs := make([]sent, 0, n)
	var lastPlain *nostr.Event // the latest stored, never deleted kind 1
	for i := range n {
		content := fmt.Sprintf("pipelined %d", i)
		var s sent
		switch {
		case i%10 == 3:
			s.ev = testutil.Signed(t, r.Member, 1, content)
			s.ev.Sig = strings.Repeat("0", 128)
			s.prefix = "invalid: bad signature"
		case i%10 == 7:
			s.ev = testutil.Signed(t, r.Member, 20001, content)
			s.ok = true
		case i%25 == 11:
			s.ev = testutil.Signed(t, r.Member, 1, strings.Repeat("x", r.Config.Limits.MaxContentBytes+1))
			s.prefix = "invalid:"
		case i%30 == 13:
			s.ev = testutil.Signed(t, stranger, 1, content)
			s.prefix = "restricted:"
		case i%20 == 9:
			s.ev = testutil.Signed(t, r.Member, 30078, content, nostr.Tag{"d", fmt.Sprint("slot ", i)})
			s.ok = true
		case i%50 == 21 && lastPlain != nil:
			s.ev = testutil.Signed(t, r.Member, nostr.KindDeletion, content, nostr.Tag{"e", lastPlain.ID})
			s.ok = true
			lastPlain = nil // deleted: not republished below
		case i%40 == 18 && lastPlain != nil:
			s.ev = *lastPlain
			s.ok, s.prefix = true, "duplicate: already have this event"
		case i%45 == 1:
			s.ev = testutil.Signed(t, r.Member, 1, content)
			s.ev.Content = "tampered"
			s.prefix = "invalid: event id does not match"
		case i%60 == 5:
			ev := nostr.Event{Kind: 1, Content: content, CreatedAt: nostr.Now() + 3600}
			if err := r.Member.SignEvent(context.Background(), &ev); err != nil {
				t.Fatal(err)
			}
			s.ev = ev
			s.prefix = "invalid: created_at"
		case i%70 == 19:
			s.ev = testutil.Signed(t, r.Member, 1, content, nostr.Tag{"-"})
			s.prefix = "auth-required:"
		default:
			s.ev = testutil.Signed(t, r.Member, 1, content)
			s.ok = true
			lastPlain = &s.ev
		}
		evs = append(evs, s)
	}

	c := dialPipe(t, r.URL)
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, s := range evs {
			if !c.trySend([]any{"EVENT", s.ev}) {
				return
			}
		}
	})
	defer wg.Wait()
	for i, want := range evs {
		ok := c.nextOK()
		if ok.id != want.ev.ID {
			t.Fatalf("OK %d answers %s, want EVENT %d (%s): OKs out of order", i, ok.id, i, want.ev.ID)
		}
		if ok.ok != want.ok || (want.prefix == "" && ok.reason != "") || !strings.HasPrefix(ok.reason, want.prefix) {
			t.Fatalf("OK %d: %v %q, want %v %q", i, ok.ok, ok.reason, want.ok, want.prefix)
		}
	}
}

// pipeClient is a raw websocket whose reading runs in its own goroutine,
// so a test can keep sending without waiting for answers and can check
// that nothing arrived (quiet) without losing a message.
type pipeClient struct {
	t  testing.TB
	ws *websocket.Conn
	// in carries every message but AUTH challenges, in order; closed when
	// the connection ends.
	in         chan []json.RawMessage
	challenges chan string
	wmu        sync.Mutex
}

// waitMax only keeps a broken relay from hanging the test: nothing is
// asserted about how long anything takes.
const waitMax = 30 * time.Second

func dialPipe(t testing.TB, url string) *pipeClient {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	c := &pipeClient{t: t, ws: ws, in: make(chan []json.RawMessage, 4096), challenges: make(chan string, 16)}
	done := make(chan struct{})
	t.Cleanup(func() { ws.Close(); <-done })
	go func() {
		defer close(done)
		defer close(c.in)
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var arr []json.RawMessage
			if err := json.Unmarshal(msg, &arr); err != nil || len(arr) == 0 {
				c.t.Errorf("relay sent non-array %q", msg)
				return
			}
			if testutil.Label(arr) == "AUTH" {
				var ch string
				json.Unmarshal(arr[1], &ch)
				select {
				case c.challenges <- ch:
				default:
				}
				continue
			}
			c.in <- arr
		}
	}()
	return c
}

// trySend writes one message as JSON; from a goroutine other than the
// test's, it reports failure instead of stopping the test.
func (c *pipeClient) trySend(v any) bool {
	b, err := json.Marshal(v)
	if err == nil {
		c.wmu.Lock()
		err = c.ws.WriteMessage(websocket.TextMessage, b)
		c.wmu.Unlock()
	}
	if err != nil {
		c.t.Errorf("send: %v", err)
		return false
	}
	return true
}

func (c *pipeClient) send(v any) {
	c.t.Helper()
	if !c.trySend(v) {
		c.t.FailNow()
	}
}

// auth answers the relay's challenge as key.
func (c *pipeClient) auth(key *signer.Local, relayURL string) {
	c.t.Helper()
	var ch string
	select {
	case ch = <-c.challenges:
	case <-time.After(waitMax):
		c.t.Fatal("no AUTH challenge")
	}
	ev := nostr.Event{Kind: nostr.KindClientAuthentication, CreatedAt: nostr.Now(),
		Tags: nostr.Tags{{"relay", relayURL}, {"challenge", ch}}}
	if err := key.SignEvent(context.Background(), &ev); err != nil {
		c.t.Fatal(err)
	}
	c.send([]any{"AUTH", ev})
	if ok := c.nextOK(); ok.id != ev.ID || !ok.ok {
		c.t.Fatalf("auth refused: %+v", ok)
	}
}

// next returns the next message.
func (c *pipeClient) next() []json.RawMessage {
	c.t.Helper()
	select {
	case m, ok := <-c.in:
		if !ok {
			c.t.Fatal("connection closed")
		}
		return m
	case <-time.After(waitMax):
		c.t.Fatal("relay stopped answering")
		return nil
	}
}

type okReply struct {
	id     string
	ok     bool
	reason string
}

// nextOK returns the next message, which must be an OK.
func (c *pipeClient) nextOK() okReply {
	c.t.Helper()
	m := c.next()
	var r okReply
	if testutil.Label(m) != "OK" || len(m) != 4 || json.Unmarshal(m[1], &r.id) != nil ||
		json.Unmarshal(m[2], &r.ok) != nil || json.Unmarshal(m[3], &r.reason) != nil {
		c.t.Fatalf("want an OK, got %s", m)
	}
	return r
}

// quiet reports whether nothing arrives for d. It only ever checks for
// absence: a slow relay can make it pass, never fail.
func (c *pipeClient) quiet(d time.Duration) (bool, []json.RawMessage) {
	select {
	case m, ok := <-c.in:
		if !ok {
			c.t.Fatal("connection closed")
		}
		return false, m
	case <-time.After(d):
		return true, nil
	}
}
