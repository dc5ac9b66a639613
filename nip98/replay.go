package nip98

import (
	"sync"
	"time"
)

// Defaults for [NewReplayCache] arguments that are zero or negative.
const (
	DefaultReplayTTL = 2 * DefaultWindow
	DefaultReplayMax = 4096
)

// ReplayCache remembers accepted event ids for a TTL so a captured token
// cannot be presented twice. It holds at most max ids; when full it forgets
// the oldest. It is safe for concurrent use.
type ReplayCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	expires map[string]time.Time // id -> expiry
	ring    []replayEntry        // insertion order, oldest at head
	head, n int
}

type replayEntry struct {
	id  string
	exp time.Time
}

// NewReplayCache returns a cache remembering ids for ttl, holding at most
// max of them. Zero or negative arguments take DefaultReplayTTL and
// DefaultReplayMax. ttl should be at least twice the verification window.
func NewReplayCache(ttl time.Duration, max int) *ReplayCache {
	if ttl <= 0 {
		ttl = DefaultReplayTTL
	}
	if max <= 0 {
		max = DefaultReplayMax
	}
	return &ReplayCache{
		ttl:     ttl,
		expires: make(map[string]time.Time, max),
		ring:    make([]replayEntry, max),
	}
}

// Seen reports whether id was recorded and has not expired at now; if not,
// it records id. The check and the record are one atomic step, so two
// concurrent presentations of a token cannot both be accepted.
func (c *ReplayCache) Seen(id string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune(now)
	if exp, ok := c.expires[id]; ok && now.Before(exp) {
		return true
	}
	if c.n == len(c.ring) {
		c.dropHead()
	}
	exp := now.Add(c.ttl)
	c.ring[(c.head+c.n)%len(c.ring)] = replayEntry{id: id, exp: exp}
	c.n++
	c.expires[id] = exp
	return false
}

// Len returns the number of ids currently held, expired or not.
func (c *ReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.expires)
}

// prune drops expired entries from the head. With a fixed TTL the ring is
// in expiry order as long as the clock does not go backwards; if it does,
// stale entries linger until they reach the head, and Seen's expiry check
// still ignores them.
func (c *ReplayCache) prune(now time.Time) {
	for c.n > 0 && !now.Before(c.ring[c.head].exp) {
		c.dropHead()
	}
}

func (c *ReplayCache) dropHead() {
	e := c.ring[c.head]
	// The id may have been re-recorded since; only delete our own record.
	if exp, ok := c.expires[e.id]; ok && exp.Equal(e.exp) {
		delete(c.expires, e.id)
	}
	c.ring[c.head] = replayEntry{}
	c.head = (c.head + 1) % len(c.ring)
	c.n--
}
