package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"

	"github.com/nbd-wtf/go-nostr"
)

// DefaultDedupeSize is how many recent event ids a subscription remembers
// to suppress duplicates, unless SubOptions says otherwise.
const DefaultDedupeSize = 10_000

// SubOptions tunes a subscription. A nil *SubOptions means the defaults.
//
// There is deliberately no way to skip signature checks: every delivered
// event is verified, whichever relay sent it.
type SubOptions struct {
	// DedupeSize is how many of the most recent delivered event ids are
	// remembered, so that events a relay sends again (stored events served
	// to a subscription re-sent after a reconnect, mailbox replays) reach
	// onEvent only once. Default DefaultDedupeSize.
	DedupeSize int
}

// Subscription is a persistent REQ, re-sent on every reconnection until it
// is closed. Create one with Conn.Subscribe.
type Subscription struct {
	c       *Conn
	id      string
	filters func() nostr.Filters
	onEvent func(*nostr.Event)
	seen    *idSet // used only by the dispatcher goroutine
	eose    chan struct{}
	done    chan struct{}
	stop    func() bool // detaches the ctx watcher

	eoseOnce sync.Once
	endOnce  sync.Once
	sendMu   sync.Mutex // one REQ at a time, so filters is never called concurrently

	mu         sync.Mutex
	err        error
	last       *session // the newest session a REQ went to
	sentAuthed bool     // whether that REQ went out already authenticated
}

// Subscribe opens a subscription and returns at once; the REQ goes out now
// if connected, or on the next connection.
//
// filters is called each time the REQ is (re)sent, so the caller can move
// `since` forward to what it has already seen; calls never overlap.
// onEvent receives every new event whose id and signature are valid, at
// most once per id (see SubOptions.DedupeSize). All subscriptions of a Conn
// share ONE delivery goroutine that calls onEvent in the order the relay
// sent the events, so onEvent must return quickly: hand real work to
// another goroutine. A slow onEvent delays every subscription and, past a
// buffer, stops reading from the relay, which then drops the connection.
// onEvent may call Subscription.Close and Publish but not Conn.Close.
//
// The subscription ends when ctx is done, Close is called, the Conn is
// closed, or the relay refuses it with CLOSED. A CLOSED auth-required
// refusal of a REQ sent before authentication is answered by
// authenticating (with a Signer) and sending the REQ again, once; any
// other CLOSED ends the subscription with Err set.
func (c *Conn) Subscribe(ctx context.Context, filters func() nostr.Filters,
	onEvent func(*nostr.Event), opts *SubOptions) (*Subscription, error) {
	if filters == nil || onEvent == nil {
		return nil, errors.New("bus: subscribe needs filters and onEvent")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	size := DefaultDedupeSize
	if opts != nil && opts.DedupeSize > 0 {
		size = opts.DedupeSize
	}
	sub := &Subscription{c: c, filters: filters, onEvent: onEvent,
		seen: newIDSet(size), eose: make(chan struct{}), done: make(chan struct{})}
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	for sub.id == "" || c.subs[sub.id] != nil {
		sub.id = newSubID()
	}
	c.subs[sub.id] = sub
	s := c.sess
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { sub.end(ctx.Err(), true) })
	sub.mu.Lock()
	sub.stop = stop
	sub.mu.Unlock()
	if sub.ended() { // ended before stop was stored: end could not detach it
		stop()
	}
	if s != nil {
		sub.send(ctx, s)
	}
	return sub, nil
}

// newSubID returns 12 random hex characters: short on the wire, and
// collisions within one Conn are checked by the caller.
func newSubID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ID returns the subscription id used on the wire.
func (sub *Subscription) ID() string { return sub.id }

// EOSE is closed when the relay first signals the end of stored events.
// It stays open if the subscription ends before that; watch Done too.
func (sub *Subscription) EOSE() <-chan struct{} { return sub.eose }

// Done is closed when the subscription has ended.
func (sub *Subscription) Done() <-chan struct{} { return sub.done }

// Err reports why the subscription ended: nil while it runs or after
// Close, a *RejectedError if the relay refused it, ctx's error if its
// context ended, ErrClosed if the Conn was closed.
func (sub *Subscription) Err() error {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.err
}

// Close ends the subscription and tells the relay (CLOSE). Only a delivery
// already under way when Close is called can still reach onEvent.
func (sub *Subscription) Close() { sub.end(nil, true) }

// send evaluates the filters and sends the REQ on s. A failure needs no
// handling: it means s died, and the next session re-sends.
func (sub *Subscription) send(ctx context.Context, s *session) {
	sub.sendMu.Lock()
	defer sub.sendMu.Unlock()
	if sub.ended() {
		return
	}
	msg, err := json.Marshal(nostr.ReqEnvelope{SubscriptionID: sub.id, Filters: sub.filters()})
	if err != nil {
		sub.c.log.Error("cannot encode subscription filters", "sub", sub.id, "err", err)
		return
	}
	sub.mu.Lock()
	if sub.last == nil || s.seq >= sub.last.seq {
		sub.last, sub.sentAuthed = s, s.authedPubKey() != ""
	}
	sub.mu.Unlock()
	_ = s.send(ctx, msg)
}

// end stops the subscription once, recording err and, if asked, sending
// CLOSE on the current session.
func (sub *Subscription) end(err error, sendClose bool) {
	sub.endOnce.Do(func() {
		c := sub.c
		c.mu.Lock()
		if c.subs[sub.id] == sub {
			delete(c.subs, sub.id)
		}
		s := c.sess
		c.mu.Unlock()
		sub.mu.Lock()
		sub.err = err
		stop := sub.stop
		sub.mu.Unlock()
		if stop != nil {
			stop()
		}
		close(sub.done)
		if sendClose && s != nil {
			msg, _ := json.Marshal(nostr.CloseEnvelope(sub.id))
			_ = s.send(s.ctx, msg)
		}
	})
}

func (sub *Subscription) ended() bool {
	select {
	case <-sub.done:
		return true
	default:
		return false
	}
}
