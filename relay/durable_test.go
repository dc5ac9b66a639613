package relay_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
)

// syncGate holds the group committer's syncs for the test: each sync
// announces itself on calls and does what the test answers — nil runs the
// real sync, an error fails the batch without syncing. open lets every
// sync through on its own, a held one included (so that a failing test
// still shuts its relay down). A kill -9 test cannot see an OK sent
// before the sync (the page cache survives the process), so the order
// "sync returned, then OK" is checked here, at the seam.
type syncGate struct {
	calls    chan chan error
	open     chan struct{}
	openOnce sync.Once
}

func gateSyncs(t *testing.T, r *testutil.Relay) *syncGate {
	g := &syncGate{calls: make(chan chan error), open: make(chan struct{})}
	relay.SetSyncHookForTest(r.Server, func(sync func() error) error {
		answer := make(chan error)
		select {
		case g.calls <- answer:
			select {
			case err := <-answer:
				if err != nil {
					return err
				}
			case <-g.open: // the test ended without answering
			}
		case <-g.open:
		}
		return sync()
	})
	// Cleanups run last-in first-out: the gate opens before the relay
	// stops (its shutdown syncs what is queued).
	t.Cleanup(g.release)
	return g
}

// held waits for the next sync and returns its answer channel.
func (g *syncGate) held(t *testing.T) chan error {
	t.Helper()
	select {
	case a := <-g.calls:
		return a
	case <-time.After(waitMax):
		t.Fatal("no batch sync started")
		return nil
	}
}

func (g *syncGate) release() { g.openOnce.Do(func() { close(g.open) }) }

// barrier sends a REQ and reads up to its EOSE, failing on any OK before
// it. The read loop handles a connection's messages in order, so at EOSE
// every EVENT sent before the REQ has been taken in (its write queued for
// the committer), and everything the relay queued for this connection
// before it handled the REQ — an OK sent too early included — has been
// read: the check needs no timing.
func barrier(t *testing.T, c *pipeClient, sub string, f nostr.Filter, why string) (events []string) {
	t.Helper()
	c.send([]any{"REQ", sub, f})
	for {
		m := c.next()
		switch testutil.Label(m) {
		case "OK":
			t.Fatalf("%s: got %s", why, m)
		case "EVENT":
			var ev nostr.Event
			if err := ev.UnmarshalJSON(m[2]); err != nil {
				t.Fatal(err)
			}
			events = append(events, ev.ID)
		case "EOSE":
			return events
		default:
			t.Fatalf("unexpected %s", m)
		}
	}
}

// An EVENT is acknowledged OK true only once the sync of the batch
// holding it has returned: with the first batch's sync held, none of the
// pipelined events gets an OK — not the one in that batch, whose
// transaction is committed and already readable, nor those queued behind
// it — and once the sync is let through, every one does, true, in order.
func TestOKOnlyAfterBatchSynced(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	g := gateSyncs(t, r)
	c := dialPipe(t, r.URL)
	c.auth(r.Member, r.URL)

	evs := make([]nostr.Event, 8)
	ids := make([]string, len(evs))
	for i := range evs {
		evs[i] = testutil.Signed(t, r.Member, 1, fmt.Sprint("durable ", i))
		ids[i] = evs[i].ID
		c.send([]any{"EVENT", evs[i]})
	}
	first := g.held(t) // the committer wrote a batch and is in its sync

	// The first event's transaction is committed (the relay serves it)
	// but its batch is not synced: no OK for it or anything after it.
	// (The probe asks for that event alone: it is never broadcast again,
	// so the subscription stays silent once the later batches land.)
	seen := barrier(t, c, "probe", nostr.Filter{IDs: ids[:1]}, "OK while the sync was held")
	if !slices.Equal(seen, ids[:1]) {
		t.Fatalf("probe returned %v, want the first event (written, not yet synced)", seen)
	}
	// Absence only, as a second look: an OK sent concurrently with the
	// sync rather than after it would most likely show here.
	if quiet, m := c.quiet(100 * time.Millisecond); !quiet {
		t.Fatalf("OK while the sync was held: got %s", m)
	}

	first <- nil // the real sync runs and returns
	g.release()  // later batches sync unhindered
	for i, ev := range evs {
		ok := c.nextOK()
		if ok.id != ev.ID || !ok.ok || ok.reason != "" {
			t.Fatalf("OK %d: %+v, want true for %s", i, ok, ev.ID)
		}
	}
}

// A batch whose sync fails is refused: every event in it gets OK false
// with an "error:" reason saying it was not persisted, while the batch
// before it (synced) is accepted, and the next events — a republication
// of a refused one included — are accepted again.
func TestFailedSyncRefusesItsBatch(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	g := gateSyncs(t, r)
	c := dialPipe(t, r.URL)
	c.auth(r.Member, r.URL)

	evs := make([]nostr.Event, 6)
	for i := range evs {
		evs[i] = testutil.Signed(t, r.Member, 1, fmt.Sprint("fragile ", i))
	}
	// Batch 1 is the first event alone: its sync is held while the next
	// four are sent, and the barrier makes sure all four are queued for
	// the committer, so they make up batch 2 together.
	c.send([]any{"EVENT", evs[0]})
	first := g.held(t)
	for _, ev := range evs[1:5] {
		c.send([]any{"EVENT", ev})
	}
	barrier(t, c, "queued", nostr.Filter{IDs: []string{evs[0].ID}, Limit: 1}, "OK while the sync was held")
	first <- nil
	g.held(t) <- errors.New("injected: fsync failed")

	ok := c.nextOK()
	if ok.id != evs[0].ID || !ok.ok {
		t.Fatalf("event of the synced batch: %+v, want true for %s", ok, evs[0].ID)
	}
	for i, ev := range evs[1:5] {
		ok := c.nextOK()
		if ok.id != ev.ID || ok.ok || !strings.HasPrefix(ok.reason, "error: ") || !strings.Contains(ok.reason, "persist") {
			t.Fatalf("event %d of the failed batch: %+v, want false for %s with an error: reason about persisting", i+1, ok, ev.ID)
		}
	}

	// Syncs work again: a new event and a retry of a refused one are
	// accepted (the retry may be a duplicate: its transaction committed
	// before the failed sync, and this batch's sync covers it).
	g.release()
	c.send([]any{"EVENT", evs[5]})
	c.send([]any{"EVENT", evs[1]})
	for _, ev := range []nostr.Event{evs[5], evs[1]} {
		if ok := c.nextOK(); ok.id != ev.ID || !ok.ok {
			t.Fatalf("after the failure: %+v, want true for %s", ok, ev.ID)
		}
	}
}
