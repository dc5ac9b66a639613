package triggers

import (
	"context"
	"sync"
)

// queue holds one trigger's entries awaiting handling, handed out one at a
// time in order: entries already under way before a restart first (they
// were started before anything still queued), then by created_at, then id.
type queue struct {
	mu    sync.Mutex
	items []*entry
	wake  chan struct{}
}

func newQueue() *queue { return &queue{wake: make(chan struct{}, 1)} }

func before(a, b *entry) bool {
	if ia, ib := a.State != stateQueued, b.State != stateQueued; ia != ib {
		return ia
	}
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt < b.CreatedAt
	}
	return a.EventID < b.EventID
}

// push adds entries.
func (q *queue) push(es ...*entry) {
	if len(es) == 0 {
		return
	}
	q.mu.Lock()
	q.items = append(q.items, es...)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop waits for an entry and returns the first in order.
func (q *queue) pop(ctx context.Context) (*entry, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			best := 0
			for i, e := range q.items {
				if before(e, q.items[best]) {
					best = i
				}
			}
			e := q.items[best]
			q.items = append(q.items[:best], q.items[best+1:]...)
			q.mu.Unlock()
			return e, nil
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// len returns how many entries wait.
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
