package relay

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	elmdb "github.com/fiatjaf/eventstore/lmdb"
	"github.com/nbd-wtf/go-nostr"
)

// TestCommitterBatchesStoreEvents drives the committer directly: many
// concurrent writes (so runs share transactions), each event sent twice,
// plus replaceable events and barriers in between. Every event must be
// stored exactly once, every second copy reported as a duplicate, and the
// store must read back what eventstore's own SaveEvent would have written
// — which also fails if the go:linkname or the reflected id index no
// longer match eventstore (storebatch.go).
func TestCommitterBatchesStoreEvents(t *testing.T) {
	store := &elmdb.LMDBBackend{Path: t.TempDir()}
	if err := store.Init(); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, err := newCommitter(store, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sk := nostr.GeneratePrivateKey()
	pk, _ := nostr.GetPublicKey(sk)
	const n = 400
	evs := make([]*nostr.Event, n)
	for i := range evs {
		ev := &nostr.Event{Kind: 1, CreatedAt: nostr.Timestamp(1_700_000_000 + i), Content: fmt.Sprint("event ", i),
			Tags: nostr.Tags{{"t", "bench"}, {"p", pk}}}
		if i%50 == 0 {
			ev.Kind = 30000 // addressable: ReplaceEvent, between runs
			ev.Tags = append(ev.Tags, nostr.Tag{"d", fmt.Sprint(i)})
		}
		if err := ev.Sign(sk); err != nil {
			t.Fatal(err)
		}
		evs[i] = ev
	}
	var mu sync.Mutex
	saved := map[string]int{}
	write := func(ev *nostr.Event) *writeReq {
		return c.submit(ev, isReplaceable(ev), func(r *writeReq) {
			mu.Lock()
			saved[r.ev.ID]++
			mu.Unlock()
		})
	}
	var wg sync.WaitGroup
	dups := make([]int, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				first, again := write(evs[i]), write(evs[i])
				if i%25 == 0 {
					c.flush()
				}
				if err := first.wait(); err != nil {
					t.Errorf("event %d: %v", i, err)
				}
				if err := again.wait(); err != nil {
					t.Errorf("event %d again: %v", i, err)
				}
				if first.dup || again.dup {
					dups[w]++
				}
			}
		})
	}
	wg.Wait()
	c.close()
	// ReplaceEvent stores an identical event at most once but does not
	// say it was a duplicate (its hook runs again); plain events must be
	// delivered once and their second copies flagged.
	plain := 0
	for i, ev := range evs {
		if isReplaceable(ev) {
			continue
		}
		plain++
		if saved[ev.ID] != 1 {
			t.Errorf("event %d: saved hook ran %d times, want 1", i, saved[ev.ID])
		}
	}
	total := 0
	for _, d := range dups {
		total += d
	}
	if total < plain {
		t.Errorf("%d second copies flagged as duplicates, want at least %d", total, plain)
	}
	ch, err := store.QueryEvents(context.Background(), nostr.Filter{Limit: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for ev := range ch {
		got[ev.ID]++
		if ok, err := ev.CheckSignature(); !ok || err != nil {
			t.Errorf("event %s read back corrupted: %v", ev.ID, err)
		}
	}
	for i, ev := range evs {
		if got[ev.ID] != 1 {
			t.Errorf("event %d stored %d times, want 1", i, got[ev.ID])
		}
	}
	ch, _ = store.QueryEvents(context.Background(), nostr.Filter{Tags: nostr.TagMap{"t": {"bench"}}, Kinds: []int{1}, Limit: 2 * n})
	byTag := 0
	for range ch {
		byTag++
	}
	if byTag != plain {
		t.Errorf("tag index returned %d events, want %d", byTag, plain)
	}
}
