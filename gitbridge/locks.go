package gitbridge

import "sync"

// keyedMutex is a mutex per key (a repository directory); entries live only
// while someone holds or waits for them.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	sync.Mutex
	refs int
}

// lock locks key and returns its unlock function.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	if k.m == nil {
		k.m = make(map[string]*keyedEntry)
	}
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.Lock()
	return func() {
		e.Unlock()
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}

// stateClock hands out created_at values that strictly increase per
// repository, so that of two state events published within one second the
// later one still replaces the earlier (NIP-01 breaks created_at ties by
// the lowest id, which would be a coin toss). Callers hold the repository
// lock.
type stateClock struct {
	mu   sync.Mutex
	last map[string]int64
}

func (c *stateClock) next(key string, now int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = make(map[string]int64)
	}
	if prev, ok := c.last[key]; ok && now <= prev {
		now = prev + 1
	}
	c.last[key] = now
	return now
}
