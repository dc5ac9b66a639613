package triggers

import (
	"context"
	"encoding/json"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/signer"
)

// callRecord is a tool call as the journal keeps it: everything needed to
// send the very same request again (same event id, which the relay and the
// worker drop as a duplicate) and to recognise its reply after a restart.
type callRecord struct {
	Worker   string          `json:"worker"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Request  string          `json:"request"` // the signed 25910's id: replies carry it in their e tag
	RPCID    int64           `json:"rpc_id"`
	Out      *nostr.Event    `json:"out"` // what is published: the wrap, or the 25910 itself
	Started  int64           `json:"started"`
	Deadline int64           `json:"deadline"`
	Attempt  int             `json:"attempt"`
}

// waiter receives the reply to one request.
type waiter struct {
	worker string
	reply  chan *jsonrpc.Response
}

// caller makes tool calls on the bus with the runner's key. It is bus.Client
// taken apart: the request is built and journaled before it is published,
// and the reply subscription reaches back to the oldest call still waiting,
// so a restarted runner collects from the relay's mailbox the results of
// calls its previous life made.
type caller struct {
	conn *bus.Conn
	key  signer.Keyer
	self string
	log  *slog.Logger
	seen *bus.Dedupe
	sub  *bus.Subscription

	mu      sync.Mutex
	pending map[string]*waiter
	oldest  map[string]int64 // request id -> call start, for the since of the REQ
}

func newCaller(conn *bus.Conn, key signer.Keyer, log *slog.Logger) *caller {
	return &caller{conn: conn, key: key, self: key.PublicKey(), log: log,
		seen: bus.NewDedupe(100_000, time.Hour), pending: map[string]*waiter{}, oldest: map[string]int64{}}
}

// start subscribes to replies and returns after the relay's stored (and
// mailbox) events were delivered.
func (c *caller) start(ctx context.Context) error {
	sub, err := c.conn.Subscribe(ctx, c.filters, c.onEvent, nil)
	if err != nil {
		return err
	}
	select {
	case <-sub.EOSE():
	case <-sub.Done():
		return sub.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
	c.sub = sub
	return nil
}

// filters run at every (re)subscription: since covers the oldest call still
// waiting, so the mailbox replays a reply that came while we were away.
func (c *caller) filters() nostr.Filters {
	since := time.Now().Unix()
	c.mu.Lock()
	for _, at := range c.oldest {
		since = min(since, at)
	}
	c.mu.Unlock()
	ts := nostr.Timestamp(since - 2)
	return nostr.Filters{{Kinds: []int{bus.KindMessage, bus.KindGiftWrap, bus.KindEphemeralGiftWrap},
		Tags: nostr.TagMap{"p": {c.self}}, Since: &ts}}
}

// onEvent routes a reply to its waiter (on the delivery goroutine).
func (c *caller) onEvent(ev *nostr.Event) {
	inner := ev
	if bus.IsWrapKind(ev.Kind) {
		var err error
		if inner, err = bus.Unwrap(context.Background(), c.key, ev); err != nil {
			c.log.Debug("dropping gift wrap", "event", ev.ID, "err", err)
			return
		}
	}
	if inner.Kind != bus.KindMessage || bus.Recipient(inner) != c.self || c.seen.Seen(inner.ID) {
		return
	}
	c.mu.Lock()
	w := c.pending[bus.ReplyTo(inner)]
	c.mu.Unlock()
	if w == nil || inner.PubKey != w.worker {
		return // not a call of ours, or not from the worker it went to
	}
	if resp, ok := decodeResponse(inner); ok {
		select {
		case w.reply <- resp:
		default:
		}
	}
}

func decodeResponse(ev *nostr.Event) (*jsonrpc.Response, bool) {
	msg, err := bus.Decode(ev)
	if err != nil {
		return nil, false
	}
	resp, ok := msg.(*jsonrpc.Response)
	return resp, ok
}

// expect registers the reply of rec before it can arrive.
func (c *caller) expect(rec *callRecord) *waiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.pending[rec.Request]; w != nil {
		return w
	}
	w := &waiter{worker: rec.Worker, reply: make(chan *jsonrpc.Response, 1)}
	c.pending[rec.Request] = w
	c.oldest[rec.Request] = rec.Started
	return w
}

// forget drops a request's waiter.
func (c *caller) forget(request string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, request)
	delete(c.oldest, request)
}

// build signs a tools/call request (and wraps it) without sending it.
func (c *caller) build(ctx context.Context, worker, tool string, args map[string]any, plaintext bool, timeout time.Duration) (*callRecord, error) {
	rawArgs, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": json.RawMessage(rawArgs)})
	// A random id: the same key, second and params must not yield the same
	// event id as an earlier call, or the worker would drop it.
	rpcID := mrand.Int64N(1 << 50)
	id, _ := jsonrpc.MakeID(float64(rpcID))
	content, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "tools/call", Params: params})
	if err != nil {
		return nil, err
	}
	ev := bus.NewMessage(content, worker, "", nostr.Tag{bus.TagSupportEncryption})
	if err := c.key.SignEvent(ctx, &ev); err != nil {
		return nil, err
	}
	out := &ev
	if !plaintext {
		if out, err = bus.Wrap(&ev, worker, bus.KindGiftWrap); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	return &callRecord{Worker: worker, Tool: tool, Args: rawArgs, Request: ev.ID, RPCID: rpcID, Out: out,
		Started: now.Unix(), Deadline: now.Add(timeout).Unix()}, nil
}

// publish sends rec's event once, waiting at most 30 s for the relay.
func (c *caller) publish(ctx context.Context, rec *callRecord) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return c.conn.Publish(ctx, rec.Out)
}

// cancel tells the worker to stop a call whose deadline passed (best
// effort). It is never sent on shutdown: the call's result is wanted then.
func (c *caller) cancel(rec *callRecord, plaintext bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"requestId": rec.RPCID, "reason": "trigger deadline passed"})
	content, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/cancelled", Params: params})
	ev := bus.NewMessage(content, rec.Worker, rec.Request)
	if c.key.SignEvent(ctx, &ev) != nil {
		return
	}
	out := &ev
	if !plaintext {
		var err error
		if out, err = bus.Wrap(&ev, rec.Worker, bus.KindGiftWrap); err != nil {
			return
		}
	}
	_ = c.conn.Publish(ctx, out)
}
