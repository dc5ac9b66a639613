package relay

import "sync"

// outQueue is one connection's bounded outbound queue. Live deliveries never
// wait: if the queue is full the subscriber is too slow and gets dropped, so a
// stuck reader delays nobody but itself. Replies to the connection's own
// requests (OK, EOSE, stored events) wait for room instead, which throttles a
// client that sends faster than it reads — again, only that client.
type outQueue struct {
	mu       sync.Mutex
	cond     *sync.Cond
	items    [][]byte
	bytes    int
	maxItems int
	maxBytes int
	closed   bool
}

func newOutQueue(maxItems, maxBytes int) *outQueue {
	q := &outQueue{maxItems: maxItems, maxBytes: maxBytes}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// pushLive enqueues without waiting; false means the queue is full (or
// closed) and the caller should drop the connection.
func (q *outQueue) pushLive(msg []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || len(q.items) >= q.maxItems || q.bytes+len(msg) > q.maxBytes {
		return false
	}
	q.append(msg)
	return true
}

// push enqueues a reply, waiting while the queue is more than half full so
// that live deliveries keep headroom. It returns false once the queue closed.
func (q *outQueue) push(msg []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && (len(q.items) >= q.maxItems/2 || q.bytes+len(msg) > q.maxBytes/2) && len(q.items) > 0 {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	q.append(msg)
	return true
}

func (q *outQueue) append(msg []byte) {
	q.items = append(q.items, msg)
	q.bytes += len(msg)
	q.cond.Broadcast()
}

// pop waits for the next message; false means closed and drained.
func (q *outQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return nil, false
	}
	msg := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	q.bytes -= len(msg)
	q.cond.Broadcast()
	return msg, true
}

// close wakes everyone; pop still drains what was queued, so a graceful
// shutdown delivers every OK already promised.
func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// discard drops whatever is queued (the connection is gone).
func (q *outQueue) discard() {
	q.mu.Lock()
	q.closed = true
	q.items, q.bytes = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
}
