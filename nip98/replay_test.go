package nip98

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

func TestReplayCacheBound(t *testing.T) {
	c := NewReplayCache(time.Hour, 3)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if c.Seen(id, testNow) {
			t.Fatalf("%s reported seen on first sight", id)
		}
	}
	if n := c.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	for _, id := range []string{"c", "d", "e"} {
		if !c.Seen(id, testNow) {
			t.Fatalf("recent id %s forgotten", id)
		}
	}
	if c.Seen("a", testNow) {
		t.Fatal("oldest id a should have been evicted")
	}
	if n := c.Len(); n != 3 {
		t.Fatalf("Len after re-adding = %d, want 3", n)
	}
}

func TestReplayCacheExpiry(t *testing.T) {
	c := NewReplayCache(10*time.Second, 100)
	if c.Seen("x", testNow) {
		t.Fatal("first sight reported seen")
	}
	if !c.Seen("x", testNow.Add(9*time.Second)) {
		t.Fatal("id forgotten before ttl")
	}
	if c.Seen("y", testNow.Add(30*time.Second)) {
		t.Fatal("y reported seen on first sight")
	}
	if n := c.Len(); n != 1 {
		t.Fatalf("expired entries not pruned: Len = %d, want 1", n)
	}
	if c.Seen("x", testNow.Add(30*time.Second)) {
		t.Fatal("id still remembered after ttl")
	}
}

// If the clock steps back, the ring is no longer in expiry order and a
// stale entry can outlive a newer record of the same id; evicting the stale
// entry must not erase the newer record.
func TestReplayCacheClockBackwards(t *testing.T) {
	at := func(sec int) time.Time { return testNow.Add(time.Duration(sec) * time.Second) }
	c := NewReplayCache(10*time.Second, 3)
	c.Seen("y", at(20)) // expires 30
	c.Seen("x", at(0))  // expires 10, queued behind y
	if c.Seen("x", at(15)) {
		t.Fatal("expired x reported seen")
	} // x re-recorded, expires 25; stale x(10) still queued
	c.Seen("z", at(16)) // full: evicts y, stale x(10) is now the head
	c.Seen("w", at(16)) // prunes stale x(10)
	if !c.Seen("x", at(17)) {
		t.Fatal("re-recorded id lost when its stale entry was evicted")
	}
}

func TestReplayCacheConcurrent(t *testing.T) {
	c := NewReplayCache(time.Minute, 128)
	var accepted atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !c.Seen("same", testNow) {
				accepted.Add(1)
			}
			c.Seen(fmt.Sprint("other", i), testNow)
		}()
	}
	wg.Wait()
	if n := accepted.Load(); n != 1 {
		t.Fatalf("%d goroutines accepted the same id, want 1", n)
	}
}

func TestVerifyReplay(t *testing.T) {
	s := newSigner(t)
	h := nostrHeader(t, s, httpEvent(testURL, "GET", testNow, nil), nil)
	opts := Options{ExpectedURL: testURL, Now: fixedNow, Replay: NewReplayCache(0, 0)}
	if _, err := Verify(newRequest("GET", testURL, h, nil), opts); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if _, err := Verify(newRequest("GET", testURL, h, nil), opts); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second use: err = %v, want ErrReplayed", err)
	}
}

// Tokens that fail other checks must not be recorded: a forged signature
// shares the genuine event's id, and a token first sent to the wrong URL
// may still be legitimately used at the right one.
func TestVerifyReplayNotPoisoned(t *testing.T) {
	s := newSigner(t)
	ev := httpEvent(testURL, "GET", testNow, nil)
	genuine := nostrHeader(t, s, ev, nil)
	forged := nostrHeader(t, s, ev, func(e *nostr.Event) { e.Sig = flipHex(e.Sig, 70) })
	cache := NewReplayCache(0, 0)
	opts := Options{ExpectedURL: testURL, Now: fixedNow, Replay: cache}

	if _, err := Verify(newRequest("GET", testURL, forged, nil), opts); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("forged: err = %v, want ErrBadSignature", err)
	}
	wrong := opts
	wrong.ExpectedURL = "https://relay.example/elsewhere"
	if _, err := Verify(newRequest("GET", testURL, genuine, nil), wrong); !errors.Is(err, ErrURLMismatch) {
		t.Fatalf("misdirected: err = %v, want ErrURLMismatch", err)
	}
	if n := cache.Len(); n != 0 {
		t.Fatalf("rejected tokens recorded: Len = %d", n)
	}
	if _, err := Verify(newRequest("GET", testURL, genuine, nil), opts); err != nil {
		t.Fatalf("genuine after rejections: %v", err)
	}
}
