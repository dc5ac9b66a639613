package relay

import (
	"context"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// mailbox keeps recent tool-bus events per recipient (their p tag) for a
// short TTL, so that a caller whose connection dropped mid-call, or whose
// subscription went live before its AUTH completed, still gets its result:
// a new subscription whose filter covers the events (#p, kinds, since) gets
// them replayed with its stored events, and a connection that authenticates
// gets the ones it could not see before. Bounded per recipient and in the
// number of recipients.
type mailbox struct {
	ttl          time.Duration
	perRecipient int
	maxRecipient int
	now          func() time.Time

	mu    sync.Mutex
	boxes map[string][]mailItem
}

type mailItem struct {
	ev      *nostr.Event
	expires time.Time
}

func newMailbox(ttl time.Duration, perRecipient int) *mailbox {
	return &mailbox{ttl: ttl, perRecipient: perRecipient, maxRecipient: 100_000,
		now: time.Now, boxes: map[string][]mailItem{}}
}

// add keeps ev for its recipient.
func (m *mailbox) add(recipient string, ev *nostr.Event) {
	if m.ttl <= 0 || recipient == "" {
		return
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	box := m.live(m.boxes[recipient], now)
	if len(box) == 0 && len(m.boxes) >= m.maxRecipient {
		m.sweep(now)
		if len(m.boxes) >= m.maxRecipient {
			return // full of live mail: drop rather than grow
		}
	}
	if len(box) >= m.perRecipient {
		box = box[len(box)-m.perRecipient+1:]
	}
	m.boxes[recipient] = append(box, mailItem{ev: ev, expires: now.Add(m.ttl)})
}

// live drops expired items (they are in arrival order, so a prefix).
func (m *mailbox) live(box []mailItem, now time.Time) []mailItem {
	i := 0
	for i < len(box) && !box[i].expires.After(now) {
		i++
	}
	return box[i:]
}

func (m *mailbox) sweep(now time.Time) {
	for k, box := range m.boxes {
		if box = m.live(box, now); len(box) == 0 {
			delete(m.boxes, k)
		} else {
			m.boxes[k] = box
		}
	}
}

// match returns the unexpired events addressed to f's #p recipients that
// f matches, oldest first.
func (m *mailbox) match(f *nostr.Filter) []*nostr.Event {
	recipients := f.Tags["p"]
	if len(recipients) == 0 || !mayMatchBusKinds(f) {
		return nil
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*nostr.Event
	for _, r := range recipients {
		for _, it := range m.live(m.boxes[r], now) {
			if f.Matches(it.ev) {
				out = append(out, it.ev)
			}
		}
	}
	return out
}

// query adapts match to khatru's QueryEvents hook signature.
func (m *mailbox) query(_ context.Context, f nostr.Filter) (chan *nostr.Event, error) {
	evs := m.match(&f)
	ch := make(chan *nostr.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	return ch, nil
}

func mayMatchBusKinds(f *nostr.Filter) bool {
	if len(f.Kinds) == 0 {
		return true
	}
	for _, k := range f.Kinds {
		if isBusKind(k) {
			return true
		}
	}
	return false
}
