package ratelimit

import (
	"testing"
	"time"
)

func TestBucketRefusesWithoutConsuming(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(1, 2, 10)
	l.now = func() time.Time { return now }
	for i := range 2 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("call %d within burst refused", i)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("over budget: ok=%v wait=%v", ok, wait)
	}
	// A refused call does not consume: after one second exactly one token.
	now = now.Add(time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("token did not refill")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("refused calls consumed nothing, so only one token should exist")
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("other key affected")
	}
}

func TestBucketMapIsBounded(t *testing.T) {
	l := New(1, 1, 3)
	for i := range 100 {
		l.Allow(string(rune('a' + i)))
	}
	if n := len(l.buckets); n > 3 {
		t.Fatalf("%d buckets kept, max 3", n)
	}
}
