package bus

import (
	"encoding/hex"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// queueSize is how many relay messages may wait for the dispatcher before
// the reader stops reading. Back-pressure is deliberate: an unbounded queue
// would hide a stuck onEvent until memory ran out, while a full relay
// outbound queue makes the relay drop us, and the reconnect replays.
const queueSize = 4096

type itemKind uint8

const (
	itemEvent itemKind = iota
	itemEOSE
	itemClosed
)

// item is one subscription message, tagged with the session it came on.
type item struct {
	s      *session
	kind   itemKind
	subID  string
	ev     *nostr.Event
	reason string
}

// enqueue passes it to the dispatcher, reporting false if the Conn closed
// while waiting for room.
func (c *Conn) enqueue(it item) bool {
	select {
	case c.queue <- it:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// dispatchLoop is the single goroutine that delivers to subscribers, which
// keeps the relay's order across all subscriptions of the Conn.
func (c *Conn) dispatchLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.ctx.Done():
			return
		case it := <-c.queue:
			c.dispatch(it)
		}
	}
}

func (c *Conn) dispatch(it item) {
	c.mu.Lock()
	sub := c.subs[it.subID]
	c.mu.Unlock()
	if sub == nil {
		return // closed meanwhile, or an id we never used
	}
	switch it.kind {
	case itemEvent:
		sub.deliver(it.ev)
	case itemEOSE:
		sub.eoseOnce.Do(func() { close(sub.eose) })
	case itemClosed:
		sub.closed(it.s, &RejectedError{Reason: it.reason})
	}
}

// deliver checks ev and hands it to onEvent once. The id check (a hash) runs
// first, so that a duplicate, the common case after a reconnect, is dropped
// without the costly signature check; an id can only be remembered after
// its signature passed, so a forged copy cannot shadow the real event.
func (sub *Subscription) deliver(ev *nostr.Event) {
	if !ev.CheckID() {
		sub.c.log.Warn("dropping event with wrong id from relay", "sub", sub.id, "id", ev.ID)
		return
	}
	var key [32]byte
	_, _ = hex.Decode(key[:], []byte(ev.ID))
	if sub.seen.has(key) {
		return
	}
	if !signer.VerifyEvent(ev) {
		sub.c.log.Warn("dropping event with bad signature from relay", "sub", sub.id, "id", ev.ID)
		return
	}
	sub.seen.add(key)
	if !sub.ended() {
		sub.onEvent(ev)
	}
}

// closed handles the relay's CLOSED. Only an auth-required refusal of a REQ
// sent before authentication is retried, and only after authenticating,
// so that a relay that keeps refusing cannot make us loop.
func (sub *Subscription) closed(s *session, rej *RejectedError) {
	sub.mu.Lock()
	stale := sub.last != s
	retry := !sub.sentAuthed && rej.Prefix() == "auth-required" && sub.c.opts.Signer != nil
	sub.mu.Unlock()
	if stale {
		return // about an older REQ; the current one was sent elsewhere
	}
	if !retry {
		sub.c.log.Info("relay closed subscription", "sub", sub.id, "reason", rej.Reason)
		sub.end(rej, false)
		return
	}
	sub.c.wg.Add(1) // safe: the dispatcher calling us is counted
	go func() {
		defer sub.c.wg.Done()
		if err := s.authenticate(s.ctx); err != nil {
			if s.ctx.Err() == nil { // a dead session is retried on reconnect
				sub.end(rej, false)
			}
			return
		}
		sub.send(s.ctx, s)
	}()
}

// idSet remembers the last max ids added, forgetting the oldest first. It
// grows as ids arrive, so a quiet subscription costs next to nothing.
type idSet struct {
	max  int
	ring [][32]byte
	next int // oldest entry once the ring is full
	m    map[[32]byte]struct{}
}

func newIDSet(max int) *idSet {
	return &idSet{max: max, m: map[[32]byte]struct{}{}}
}

func (s *idSet) has(id [32]byte) bool {
	_, ok := s.m[id]
	return ok
}

func (s *idSet) add(id [32]byte) {
	if len(s.ring) < s.max {
		s.ring = append(s.ring, id)
	} else {
		delete(s.m, s.ring[s.next])
		s.ring[s.next] = id
		s.next = (s.next + 1) % len(s.ring)
	}
	s.m[id] = struct{}{}
}
