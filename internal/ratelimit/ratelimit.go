// Package ratelimit is a keyed token-bucket limiter shared by the relay's
// per-pubkey and per-IP budgets and the tool bus's per-caller quotas.
package ratelimit

import (
	"sync"
	"time"
)

// Limiter is a set of token buckets keyed by pubkey or IP. Allow is one
// check-and-take step, so a refused request consumes nothing.
type Limiter struct {
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	maxKeys int
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter refilling rate tokens per second up to burst.
// At most maxKeys buckets are kept; when full, buckets that have refilled
// completely are forgotten first (they carry no state worth keeping).
func New(rate float64, burst int, maxKeys int) *Limiter {
	return &Limiter{rate: rate, burst: float64(burst), now: time.Now,
		buckets: make(map[string]*bucket), maxKeys: maxKeys}
}

// Allow takes one token for key. When none is left it returns false and how
// long until one will be.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		l.makeRoom(now)
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
		return false, wait
	}
	b.tokens--
	return true, 0
}

// makeRoom drops full buckets when the map is at capacity; if none is full,
// it drops an arbitrary one rather than grow without bound.
func (l *Limiter) makeRoom(now time.Time) {
	if len(l.buckets) < l.maxKeys {
		return
	}
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < l.maxKeys {
			return
		}
		delete(l.buckets, k)
	}
}
