package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/signer"
)

// The floor is the least a tool call over Nostr can cost: the caller signs
// a kind-25910 request carrying the same JSON-RPC text a bus.Client sends,
// a responder subscribed to its #p gets it, parses the id and text, and
// signs and publishes a 25910 response (p caller, e request), which the
// caller gets on its own #p subscription. Both ends use bus.Conn, as the
// tool bus does, so every received event's signature is verified the same
// way; nothing is pre-signed, because signing is part of a call. What the
// floor leaves out is everything the bus adds: MCP sessions, schemas,
// authorisation, dedupe and the relay's policies.

// floorConcurrency bounds requests answered at once, as
// bus.ServerOptions.Concurrency does for the worker.
const floorConcurrency = 64

// floorResponder answers requests addressed to its key.
type floorResponder struct {
	key  *signer.Local
	conn *bus.Conn
	sem  chan struct{}
}

// floorCaller sends requests and matches responses by their e tag.
type floorCaller struct {
	key       *signer.Local
	responder string
	conn      *bus.Conn
	ids       atomic.Int64
	mu        sync.Mutex
	pending   map[string]chan *nostr.Event // request id -> its response
}

// startFloorSide subscribes the responder first, since khatru refuses an
// ephemeral event nobody listens to ("mute:"), then the callers.
func startFloorSide(ctx context.Context, url string, bc *busCrew, n int) (side *busSide, err error) {
	var conns []*bus.Conn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	r := &floorResponder{key: bc.worker, sem: make(chan struct{}, floorConcurrency)}
	if r.conn, err = subscribedConn(ctx, url, bc.worker.PublicKey(), r.onRequest); err != nil {
		return nil, fmt.Errorf("responder: %w", err)
	}
	conns = append(conns, r.conn)
	callers := make([]*floorCaller, n)
	for i, key := range bc.callers[:n] {
		c := &floorCaller{key: key, responder: r.key.PublicKey(), pending: map[string]chan *nostr.Event{}}
		if c.conn, err = subscribedConn(ctx, url, key.PublicKey(), c.onResponse); err != nil {
			return nil, fmt.Errorf("caller: %w", err)
		}
		conns = append(conns, c.conn)
		callers[i] = c
	}
	call := func(ctx context.Context, i int, text string) error { return callers[i].call(ctx, text) }
	return &busSide{close: closeAll, variants: []variant{{name: "plaintext", call: call}}}, nil
}

// subscribedConn connects without authentication (khatru asks for none)
// and subscribes to the 25910 events addressed to pubkey.
func subscribedConn(ctx context.Context, url, pubkey string, onEvent func(*nostr.Event)) (*bus.Conn, error) {
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Logger: quiet})
	if err != nil {
		return nil, err
	}
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{bus.KindMessage}, Tags: nostr.TagMap{"p": {pubkey}}, LimitZero: true}}
	}
	sub, err := conn.Subscribe(ctx, filters, onEvent, nil)
	if err == nil {
		select {
		case <-sub.EOSE():
			return conn, nil
		case <-sub.Done():
			err = fmt.Errorf("subscription ended: %v", sub.Err())
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	conn.Close()
	return nil, err
}

// onRequest runs on the delivery goroutine: the answer is signed and
// published on another, as bus.Server does.
func (r *floorResponder) onRequest(ev *nostr.Event) {
	r.sem <- struct{}{}
	go func() {
		defer func() { <-r.sem }()
		// A request left unanswered times out at its caller, which
		// reports it as a failed call.
		_ = r.answer(ev)
	}()
}

// floorRequest is as much of a tools/call as the responder reads.
type floorRequest struct {
	ID     json.RawMessage `json:"id"`
	Params struct {
		Arguments echoArgs `json:"arguments"`
	} `json:"params"`
}

// floorResponse is a JSON-RPC tools/call result with one text content.
type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		Content []floorText `json:"content"`
	} `json:"result"`
}

type floorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (r *floorResponder) answer(req *nostr.Event) error {
	var in floorRequest
	if err := json.Unmarshal([]byte(req.Content), &in); err != nil {
		return err
	}
	out := floorResponse{JSONRPC: "2.0", ID: in.ID}
	out.Result.Content = []floorText{{Type: "text", Text: in.Params.Arguments.Text}}
	content, err := json.Marshal(out)
	if err != nil {
		return err
	}
	ev := bus.NewMessage(content, req.PubKey, req.ID)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := r.key.SignEvent(ctx, &ev); err != nil {
		return err
	}
	return r.conn.Publish(ctx, &ev)
}

// call sends one echo request and waits for its checked response.
func (c *floorCaller) call(ctx context.Context, text string) error {
	id, _ := jsonrpc.MakeID(float64(c.ids.Add(1)))
	params, err := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	if err != nil {
		return err
	}
	content, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "tools/call", Params: params})
	if err != nil {
		return err
	}
	ev := bus.NewMessage(content, c.responder, "")
	if err := c.key.SignEvent(ctx, &ev); err != nil {
		return err
	}
	reply := make(chan *nostr.Event, 1)
	c.mu.Lock()
	c.pending[ev.ID] = reply
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, ev.ID)
		c.mu.Unlock()
	}()
	if err := c.conn.Publish(ctx, &ev); err != nil {
		return err
	}
	select {
	case resp := <-reply:
		return checkFloorEcho(resp, text)
	case <-ctx.Done():
		return fmt.Errorf("no response: %w", ctx.Err())
	}
}

// onResponse routes a response (its signature already verified by
// bus.Conn) from the responder to its call.
func (c *floorCaller) onResponse(ev *nostr.Event) {
	if ev.PubKey != c.responder {
		return
	}
	c.mu.Lock()
	reply := c.pending[bus.ReplyTo(ev)]
	c.mu.Unlock()
	if reply != nil {
		select {
		case reply <- ev:
		default:
		}
	}
}

func checkFloorEcho(ev *nostr.Event, want string) error {
	var resp floorResponse
	if err := json.Unmarshal([]byte(ev.Content), &resp); err != nil {
		return err
	}
	if len(resp.Result.Content) != 1 || resp.Result.Content[0].Text != want {
		return errors.New("floor echo returned the wrong text")
	}
	return nil
}
