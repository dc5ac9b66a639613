package relay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/policies"
)

const (
	writeWait  = 10 * time.Second
	pongWait   = 60 * time.Second
	pingPeriod = 30 * time.Second
	// discardCap bounds how much of an oversized message is read and thrown
	// away so the connection can answer with a NOTICE; beyond it the peer is
	// not a Nostr client and the connection is closed.
	discardCap = 64 << 20
	// maxInFlight bounds a connection's EVENTs awaiting their OK; past it
	// the read loop waits, which slows that client alone.
	maxInFlight = 256
)

// conn is one websocket client. Its messages are handled one at a time, in
// order, by its read loop, so OKs come back in the order EVENTs were sent and
// a flood on one socket costs one goroutine, not one per message.
type conn struct {
	srv       *Server
	ws        *websocket.Conn
	ip        string
	challenge string
	authed    atomic.Pointer[string]
	out       *outQueue
	acks      chan pendingAck // OKs in EVENT order, resolved by ackLoop
	ctx       context.Context
	cancel    context.CancelFunc
	hookCtx   context.Context

	mu   sync.Mutex
	subs map[string]*subscription
	dead bool
}

// subscription is one REQ: its filters and how to stop its stored query.
type subscription struct {
	conn    *conn
	id      string
	filters []nostr.Filter
	entries []*entry // filed in the index; guarded by the index lock
	ctx     context.Context
	cancel  context.CancelFunc
}

func newConn(srv *Server, ws *websocket.Conn, ip string) *conn {
	c := &conn{srv: srv, ws: ws, ip: ip, subs: map[string]*subscription{},
		out: newOutQueue(srv.queueItems, srv.queueBytes), acks: make(chan pendingAck, maxInFlight)}
	var ch [16]byte
	_, _ = rand.Read(ch[:])
	c.challenge = hex.EncodeToString(ch[:])
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.hookCtx = policies.WithConn(c.ctx, c)
	return c
}

// AuthedPubKey implements policies.Conn.
func (c *conn) AuthedPubKey() string {
	if p := c.authed.Load(); p != nil {
		return *p
	}
	return ""
}

// RemoteIP implements policies.Conn.
func (c *conn) RemoteIP() string { return c.ip }

// readLoop handles messages until the peer leaves or the server stops it;
// ackLoop then flushes the OKs still owed and closes the connection.
func (c *conn) readLoop() {
	defer c.srv.readers.Done()
	defer close(c.acks)
	c.ws.SetReadDeadline(time.Now().Add(pongWait))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(pongWait))
	})
	for {
		msg, err := c.readMessage()
		if errors.Is(err, errTooLarge) {
			c.send(noticeMsg("invalid: message too large (max " + itoa(c.srv.cfg.Limits.MaxMessageBytes) + " bytes)"))
			continue
		}
		if err != nil {
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(pongWait))
		if c.srv.stopping() {
			return
		}
		c.handle(msg)
	}
}

var errTooLarge = errors.New("message too large")

// readMessage reads one text message of at most MaxMessageBytes. A larger one
// is read to its end and discarded (up to discardCap) so that the client gets
// a NOTICE instead of a dropped connection.
func (c *conn) readMessage() ([]byte, error) {
	for {
		typ, r, err := c.ws.NextReader()
		if err != nil {
			return nil, err
		}
		if typ != websocket.TextMessage {
			continue
		}
		max := int64(c.srv.cfg.Limits.MaxMessageBytes)
		msg, err := io.ReadAll(io.LimitReader(r, max+1))
		if err != nil {
			return nil, err
		}
		if int64(len(msg)) <= max {
			return msg, nil
		}
		n, err := io.CopyN(io.Discard, r, discardCap)
		if err != nil && err != io.EOF || n == discardCap {
			return nil, errors.New("message exceeds discard cap")
		}
		return nil, errTooLarge
	}
}

// handle dispatches one message by its label.
func (c *conn) handle(msg []byte) {
	if !json.Valid(msg) {
		c.send(noticeMsg("invalid: malformed JSON"))
		return
	}
	env, err := nostr.NewMessageParser().ParseMessage(string(msg))
	if err != nil || env == nil {
		c.send(noticeMsg("invalid: unrecognised or malformed message"))
		return
	}
	switch env := env.(type) {
	case *nostr.EventEnvelope:
		c.handleEvent(&env.Event)
	case *nostr.ReqEnvelope:
		c.handleReq(env.SubscriptionID, env.Filters)
	case *nostr.CloseEnvelope:
		c.closeSub(string(*env), "")
	case *nostr.AuthEnvelope:
		c.handleAuth(&env.Event)
	case *nostr.CountEnvelope:
		c.send(closedMsg(env.SubscriptionID, "unsupported: COUNT is not supported"))
	default:
		c.send(noticeMsg("invalid: unexpected " + env.Label() + " message from a client"))
	}
}

// send queues a reply, waiting for room (see outQueue).
func (c *conn) send(msg []byte) { c.out.push(msg) }

// deliver queues a live event without waiting; a full queue drops the client.
func (c *conn) deliver(msg []byte) {
	if !c.out.pushLive(msg) {
		c.srv.log.Warn("dropping slow subscriber: outbound queue full", "ip", c.ip, "pubkey", c.AuthedPubKey())
		c.abort()
	}
}

// writeLoop drains the outbound queue to the socket. Pings go out from
// pingLoop: gorilla-style connections allow WriteControl concurrently with
// WriteMessage, so keep-alive needs no extra hop on the delivery path.
func (c *conn) writeLoop() {
	defer c.srv.writers.Done()
	defer c.ws.Close()
	go c.pingLoop()
	for {
		m, ok := c.out.pop()
		if !ok {
			c.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseGoingAway, "relay shutting down"), time.Now().Add(time.Second))
			return
		}
		c.ws.SetWriteDeadline(time.Now().Add(writeWait))
		if err := c.ws.WriteMessage(websocket.TextMessage, m); err != nil {
			c.abort()
			return
		}
	}
}

func (c *conn) pingLoop() {
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				c.abort()
				return
			}
		}
	}
}

// close ends the connection after the read loop: subscriptions go, queued
// replies are still flushed by the write loop.
func (c *conn) close() {
	c.teardown()
	c.out.close()
}

// abort ends the connection at once, dropping queued messages.
func (c *conn) abort() {
	c.teardown()
	c.out.discard()
	c.ws.SetReadDeadline(time.Now())
}

func (c *conn) teardown() {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return
	}
	c.dead = true
	subs := c.subs
	c.subs = map[string]*subscription{}
	c.mu.Unlock()
	for _, s := range subs {
		c.srv.index.remove(s)
		s.cancel()
	}
	c.cancel()
	c.srv.forget(c)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
