package bus

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"
)

const (
	pingPeriod = 30 * time.Second
	pongWait   = 60 * time.Second
	writeWait  = 10 * time.Second
	// maxMessage bounds what a (possibly hostile) relay can make us buffer
	// in one frame; it is well above the largest event a toolbus relay
	// accepts.
	maxMessage = 16 << 20
)

// session is one websocket connection. The reader goroutine owns reads and
// the writer goroutine owns writes (data and pings), so the socket is never
// written concurrently.
type session struct {
	c          *Conn
	seq        uint64
	ws         *websocket.Conn
	ctx        context.Context // ends with the session
	cancel     context.CancelFunc
	out        chan []byte   // unbuffered: a message taken is being written
	dead       chan struct{} // closed when the session ends
	challenged chan struct{} // closed at the first AUTH challenge
	deathOnce  sync.Once
	chalOnce   sync.Once

	mu        sync.Mutex
	err       error // why the session ended
	challenge string
	authed    string // pubkey accepted by the relay for authedFor
	authedFor string // the challenge that authed answered
	flight    *authFlight
	oks       map[string][]chan okReply
}

func (c *Conn) startSession(ws *websocket.Conn) *session {
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	s := &session{c: c, seq: seq, ws: ws, out: make(chan []byte),
		dead: make(chan struct{}), challenged: make(chan struct{}),
		oks: map[string][]chan okReply{}}
	s.ctx, s.cancel = context.WithCancel(c.ctx)
	ws.SetReadLimit(maxMessage)
	c.wg.Add(2)
	go s.readLoop()
	go s.writeLoop()
	return s
}

// kill ends the session once; the first cause is kept.
func (s *session) kill(cause error) {
	s.deathOnce.Do(func() {
		s.mu.Lock()
		s.err = cause
		s.mu.Unlock()
		close(s.dead)
		s.cancel()
		if cause == ErrClosed {
			_ = s.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
				time.Now().Add(time.Second))
		}
		_ = s.ws.Close()
	})
}

func (s *session) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// reason returns why the session ended, as the socket reported it.
func (s *session) reason() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// cause returns why the session ended, wrapping ErrDisconnected unless the
// Conn was closed.
func (s *session) cause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == ErrClosed {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrDisconnected, s.err)
}

// send hands msg to the writer. An error means msg was not taken, so
// nothing of it reached the relay.
func (s *session) send(ctx context.Context, msg []byte) error {
	select {
	case s.out <- msg:
		return nil
	case <-s.dead:
		return s.cause()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *session) writeLoop() {
	defer s.c.wg.Done()
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	for {
		select {
		case <-s.dead:
			return
		case <-s.c.ctx.Done():
			s.kill(ErrClosed)
			return
		case msg := <-s.out:
			_ = s.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := s.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				s.kill(fmt.Errorf("write: %w", err))
				return
			}
		case <-ping.C:
			if err := s.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				s.kill(fmt.Errorf("ping: %w", err))
				return
			}
		}
	}
}

// readLoop reads until the socket fails. Any message or pong proves the
// relay alive; silence for pongWait (two missed pings) ends the session.
func (s *session) readLoop() {
	defer s.c.wg.Done()
	extend := func(string) error { return s.ws.SetReadDeadline(time.Now().Add(pongWait)) }
	_ = extend("")
	s.ws.SetPongHandler(extend)
	parser := nostr.NewMessageParser()
	for {
		_, msg, err := s.ws.ReadMessage()
		if err != nil {
			s.kill(fmt.Errorf("read: %w", err))
			return
		}
		_ = extend("")
		env, err := parser.ParseMessage(string(msg))
		if err != nil || env == nil {
			s.c.log.Debug("ignoring unparsable relay message", "err", err)
			continue
		}
		if !s.handle(env) {
			s.kill(ErrClosed)
			return
		}
	}
}

// handle acts on one relay message. Subscription traffic goes to the
// dispatcher in arrival order; it reports false if the Conn closed while
// waiting for room there.
func (s *session) handle(env nostr.Envelope) bool {
	switch e := env.(type) {
	case *nostr.EventEnvelope:
		if e.SubscriptionID == nil {
			return true
		}
		ev := e.Event
		return s.c.enqueue(item{s: s, kind: itemEvent, subID: *e.SubscriptionID, ev: &ev})
	case *nostr.EOSEEnvelope:
		return s.c.enqueue(item{s: s, kind: itemEOSE, subID: string(*e)})
	case *nostr.ClosedEnvelope:
		return s.c.enqueue(item{s: s, kind: itemClosed, subID: e.SubscriptionID, reason: e.Reason})
	case *nostr.OKEnvelope:
		s.resolveOK(e.EventID, okReply{ok: e.OK, reason: e.Reason})
	case *nostr.AuthEnvelope:
		if e.Challenge != nil {
			s.setChallenge(*e.Challenge)
		}
	case *nostr.NoticeEnvelope:
		s.c.log.Info("relay notice", "notice", string(*e))
	}
	return true
}
