package bus

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/fasthttp/websocket"
)

// authTimeout bounds one NIP-42 exchange (signing plus the relay's OK), so
// a stuck remote signer cannot hold a connection's setup forever.
const authTimeout = 10 * time.Second

var dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}

// run is the connection manager: it waits for the current session to end
// and reconnects with backoff until the Conn is closed.
func (c *Conn) run(s *session) {
	defer c.wg.Done()
	delay := c.opts.MinBackoff
	for {
		started := time.Now()
		c.serve(s)
		if c.ctx.Err() != nil {
			return
		}
		// A connection that lasted resets the backoff; one the relay drops
		// at once (a flapping proxy, a refusing relay) keeps growing it.
		if time.Since(started) > c.opts.MaxBackoff {
			delay = c.opts.MinBackoff
		}
		for s = nil; s == nil; delay = min(delay*2, c.opts.MaxBackoff) {
			if !sleep(c.ctx, jitter(delay)) {
				return
			}
			var err error
			if s, err = c.connect(c.ctx); err != nil {
				c.log.Debug("reconnect failed", "err", err, "retry_in", delay)
			}
		}
	}
}

// serve waits until s ends, then withdraws it so callers wait for the next.
func (c *Conn) serve(s *session) {
	select {
	case <-s.dead:
	case <-c.ctx.Done():
		s.kill(ErrClosed)
	}
	c.mu.Lock()
	if c.sess == s {
		c.sess = nil
	}
	c.mu.Unlock()
	c.notify()
	if c.ctx.Err() == nil {
		c.log.Info("relay connection lost", "err", s.reason())
	}
}

// connect dials, authenticates if it can, re-sends every subscription and
// makes the session the current one.
func (c *Conn) connect(ctx context.Context) (*session, error) {
	ws, _, err := dialer.DialContext(ctx, c.url, nil)
	if err != nil {
		return nil, err
	}
	s := c.startSession(ws)
	if err := c.setup(ctx, s); err != nil {
		s.kill(err)
		return nil, err
	}
	c.log.Debug("relay connected", "authed", s.authedPubKey())
	if c.opts.OnConnect != nil {
		c.opts.OnConnect()
	}
	c.mu.Lock()
	hooks := append([]func(){}, c.onConnect...)
	c.mu.Unlock()
	for _, fn := range hooks {
		fn()
	}
	return s, nil
}

// setup waits briefly for the relay's challenge and answers it before the
// session goes live, so that re-sent subscriptions are served at once.
func (c *Conn) setup(ctx context.Context, s *session) error {
	if c.opts.Signer != nil {
		timer := time.NewTimer(c.opts.AuthWait)
		defer timer.Stop()
		select {
		case <-s.challenged:
			actx, cancel := context.WithTimeout(ctx, authTimeout)
			err := s.authenticate(actx)
			cancel()
			if err != nil && ctx.Err() == nil && !s.isDead() {
				c.log.Warn("relay refused authentication", "err", err)
			}
		case <-timer.C:
		case <-s.dead:
		case <-ctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.isDead() {
		return s.cause()
	}
	c.activate(s)
	return nil
}

// activate makes s the current session and re-sends every subscription.
// Taking the snapshot under the same lock that Subscribe holds to read the
// session guarantees that each subscription is sent exactly once to s.
func (c *Conn) activate(s *session) {
	c.mu.Lock()
	c.sess = s
	subs := make([]*Subscription, 0, len(c.subs))
	for _, sub := range c.subs {
		subs = append(subs, sub)
	}
	c.mu.Unlock()
	c.notify()
	for _, sub := range subs {
		sub.send(s.ctx, s)
	}
}

// jitter spreads d over [d/2, d).
func jitter(d time.Duration) time.Duration {
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half)
}

// sleep waits d, reporting false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
