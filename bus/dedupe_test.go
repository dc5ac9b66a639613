package bus

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for Dedupe.now.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestDedupe(maxIDs int, ttl time.Duration) (*Dedupe, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	d := NewDedupe(maxIDs, ttl)
	d.now = clock.now
	return d, clock
}

func TestDedupeSeen(t *testing.T) {
	d, _ := newTestDedupe(10, time.Minute)
	if d.Seen("a") {
		t.Fatal("first sight reported as seen")
	}
	if !d.Seen("a") || !d.Seen("a") {
		t.Fatal("repeat not reported as seen")
	}
	if d.Seen("b") {
		t.Fatal("a different id reported as seen")
	}
}

func TestDedupeBound(t *testing.T) {
	d, _ := newTestDedupe(3, time.Hour)
	for i := range 1000 {
		d.Seen(fmt.Sprint(i))
		if n := d.Len(); n > 3 {
			t.Fatalf("holds %d ids, bound is 3", n)
		}
	}
	// The newest three remain; the oldest were pushed out first.
	for _, id := range []string{"997", "998", "999"} {
		if !d.Seen(id) {
			t.Errorf("recent id %s forgotten", id)
		}
	}
	if d.Seen("996") {
		t.Error("id 996 should have been evicted")
	}
	if len(d.order) > 2*3+1 {
		t.Errorf("queue backing grew to %d entries", len(d.order))
	}
}

func TestDedupeExpiry(t *testing.T) {
	d, clock := newTestDedupe(100, time.Minute)
	d.Seen("old")
	clock.t = clock.t.Add(30 * time.Second)
	d.Seen("young")
	if !d.Seen("old") {
		t.Fatal("expired too early")
	}
	clock.t = clock.t.Add(30 * time.Second) // "old" is now exactly ttl old
	if d.Seen("old") {
		t.Fatal("id not forgotten after ttl")
	}
	if !d.Seen("young") {
		t.Fatal("younger id expired with the old one")
	}
	clock.t = clock.t.Add(time.Hour)
	if n := d.Len(); n != 0 {
		t.Fatalf("%d ids survive long after ttl", n)
	}
}

func TestDedupeRepeatDoesNotExtend(t *testing.T) {
	d, clock := newTestDedupe(100, time.Minute)
	d.Seen("x")
	for range 5 {
		clock.t = clock.t.Add(20 * time.Second)
		d.Seen("x")
	}
	// 100 s after first sight: forgotten despite copies every 20 s. The copy
	// at 60 s re-recorded it, so it is seen again only until 120 s.
	clock.t = clock.t.Add(21 * time.Second)
	if d.Seen("x") {
		t.Fatal("repeated sightings pinned the id past its window")
	}
}

func TestDedupeNoTTL(t *testing.T) {
	d, clock := newTestDedupe(2, 0)
	d.Seen("a")
	clock.t = clock.t.Add(1000 * time.Hour)
	if !d.Seen("a") {
		t.Fatal("ttl 0 must keep ids until the bound pushes them out")
	}
	if NewDedupe(0, 0).max != 1 {
		t.Fatal("max below 1 not clamped")
	}
}

func TestDedupeConcurrent(t *testing.T) {
	d := NewDedupe(64, time.Minute)
	var wg sync.WaitGroup
	firsts := make(chan string, 8*200)
	for range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := fmt.Sprint(i % 50)
				if !d.Seen(id) {
					firsts <- id
				}
			}
		})
	}
	wg.Wait()
	close(firsts)
	count := map[string]int{}
	for id := range firsts {
		count[id]++
	}
	// 50 ids fit in the bound and none expire: each is new exactly once.
	if len(count) != 50 {
		t.Fatalf("%d distinct first sightings, want 50", len(count))
	}
	for id, n := range count {
		if n != 1 {
			t.Fatalf("id %s reported new %d times", id, n)
		}
	}
}
