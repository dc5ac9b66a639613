package bus

import (
	"sync"
	"time"
)

// Dedupe remembers recently seen event ids so that a message delivered twice
// (by several relays, or re-sent after a reconnect) is handled once. Servers
// and clients check both the wrap id and the inner event id: the same inner
// event may arrive in two different wraps.
//
// It is bounded in both time and space: an id is forgotten after ttl, and
// when max ids are held the oldest is forgotten to make room. A peer flooding
// fresh ids therefore costs bounded memory; the price is that a duplicate
// older than the window is let through, which receivers must tolerate anyway
// (JSON-RPC handlers see it as a repeated request). Safe for concurrent use.
type Dedupe struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time // time.Now; tests substitute a fake clock
	seen  map[string]time.Time
	order []seenAt // ids in insertion order, oldest at order[head]
	head  int
}

// seenAt is one id and when it was first seen.
type seenAt struct {
	id string
	at time.Time
}

// NewDedupe returns a set holding at most maxIDs ids (at least 1) for ttl
// each. A ttl of zero or less keeps ids until the bound pushes them out.
func NewDedupe(maxIDs int, ttl time.Duration) *Dedupe {
	return &Dedupe{
		max:  max(1, maxIDs),
		ttl:  ttl,
		now:  time.Now,
		seen: make(map[string]time.Time),
	}
}

// Seen records id and reports whether it was already recorded within the
// window. Seeing a duplicate does not extend its lifetime: a stream of copies
// cannot pin an id forever.
func (d *Dedupe) Seen(id string) bool {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(now)
	if _, ok := d.seen[id]; ok {
		return true
	}
	if len(d.order)-d.head >= d.max {
		d.popOldest()
	}
	d.seen[id] = now
	d.order = append(d.order, seenAt{id, now})
	return false
}

// Len returns how many ids are currently remembered.
func (d *Dedupe) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(d.now())
	return len(d.seen)
}

// expire drops ids older than ttl. All ids share one ttl, so insertion order
// is expiry order and only the front of the queue needs looking at.
func (d *Dedupe) expire(now time.Time) {
	if d.ttl <= 0 {
		return
	}
	for d.head < len(d.order) && now.Sub(d.order[d.head].at) >= d.ttl {
		d.popOldest()
	}
}

// popOldest forgets the oldest id. The queue is a slice consumed from the
// front; it is compacted once the consumed half dominates, so its backing
// array stays within about twice max.
func (d *Dedupe) popOldest() {
	delete(d.seen, d.order[d.head].id)
	d.order[d.head] = seenAt{} // release the id string
	d.head++
	if d.head > len(d.order)/2 {
		d.order = append(d.order[:0], d.order[d.head:]...)
		d.head = 0
	}
}
