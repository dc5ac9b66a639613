package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callerSession is one caller's MCP session with the worker's mcp.Server.
// The session is connected through an in-process mcp.Connection (this type)
// and starts pre-initialised, so stateless callers may send tools/list or
// tools/call without an initialize.
//
// Request ids are rewritten on the way in to ids unique to the worker:
// callers choose their own ids, may reuse them (a stateless caller can send
// every request as id 1) and the MCP session must never see two in flight
// with the same id. The original id is restored on the response.
type callerSession struct {
	srv    *Server
	caller string
	in     chan jsonrpc.Message
	closed chan struct{}
	once   sync.Once
	ss     *mcp.ServerSession
	used   atomic.Int64 // unix nanos of the last message

	mu        sync.Mutex
	pending   map[int64]*pendingRequest // internal id -> request
	byEvent   map[string]int64          // request event id -> internal id
	byOrig    map[string]int64          // caller's id -> internal id (latest)
	progress  map[string]string         // progress token -> request event id
	wrapKind  int                       // kind of the caller's latest message
	announced bool                      // discovery tags sent
}

// pendingRequest is what the worker needs to answer a request.
type pendingRequest struct {
	origID   jsonrpc.ID
	eventID  string
	method   string
	wrapKind int
	token    string
}

// preInitialized is the state a caller session starts in.
func preInitialized() *mcp.ServerSessionState {
	return &mcp.ServerSessionState{
		InitializeParams: &mcp.InitializeParams{
			ProtocolVersion: "2025-11-25",
			ClientInfo:      &mcp.Implementation{Name: "toolbus-bus-caller", Version: "0"},
			Capabilities:    &mcp.ClientCapabilities{},
		},
		InitializedParams: &mcp.InitializedParams{},
	}
}

// newCallerSession opens a session for caller. A caller that starts with
// initialize gets a fresh session that runs the handshake; any other first
// message gets one that starts initialised (stateless callers).
func newCallerSession(ctx context.Context, srv *Server, caller string, handshake bool) (*callerSession, error) {
	cs := &callerSession{srv: srv, caller: caller, in: make(chan jsonrpc.Message, 64),
		closed: make(chan struct{}), pending: map[int64]*pendingRequest{},
		byEvent: map[string]int64{}, byOrig: map[string]int64{}, progress: map[string]string{}}
	cs.touch()
	var opts *mcp.ServerSessionOptions
	if !handshake {
		opts = &mcp.ServerSessionOptions{State: preInitialized()}
	}
	ss, err := srv.mcp.Connect(ctx, cs, opts)
	if err != nil {
		return nil, fmt.Errorf("bus: open session: %w", err)
	}
	cs.ss = ss
	return cs, nil
}

func (cs *callerSession) touch() { cs.used.Store(time.Now().UnixNano()) }

// Connect implements mcp.Transport: the session is its own connection.
func (cs *callerSession) Connect(context.Context) (mcp.Connection, error) { return cs, nil }

// Read implements mcp.Connection.
func (cs *callerSession) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-cs.in:
		return m, nil
	case <-cs.closed:
		return nil, errors.New("bus: session closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: a message from the MCP session to the
// caller goes out over the bus.
func (cs *callerSession) Write(ctx context.Context, m jsonrpc.Message) error {
	return cs.srv.fromSession(ctx, cs, m)
}

// Close implements mcp.Connection.
func (cs *callerSession) Close() error {
	cs.once.Do(func() { close(cs.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (cs *callerSession) SessionID() string { return cs.caller }

// deliver hands a message to the MCP session.
func (cs *callerSession) deliver(ctx context.Context, m jsonrpc.Message) error {
	cs.touch()
	select {
	case cs.in <- m:
		return nil
	case <-cs.closed:
		return errors.New("bus: session closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// request records an incoming call and forwards it under an internal id.
func (cs *callerSession) request(ctx context.Context, req *jsonrpc.Request, eventID string, wrapKind int) error {
	internal := cs.srv.nextID.Add(1)
	p := &pendingRequest{origID: req.ID, eventID: eventID, method: req.Method, wrapKind: wrapKind,
		token: progressToken(req.Params)}
	cs.mu.Lock()
	cs.pending[internal] = p
	cs.byEvent[eventID] = internal
	cs.byOrig[idKey(req.ID)] = internal
	if p.token != "" {
		cs.progress[p.token] = eventID
	}
	cs.wrapKind = wrapKind
	cs.mu.Unlock()
	id, _ := jsonrpc.MakeID(float64(internal))
	fwd := *req
	fwd.ID = id
	return cs.deliver(ctx, &fwd)
}

// take removes and returns the pending request answered by a response.
func (cs *callerSession) take(id jsonrpc.ID) *pendingRequest {
	n, ok := id.Raw().(int64)
	if !ok {
		if f, isFloat := id.Raw().(float64); isFloat {
			n, ok = int64(f), true
		}
	}
	if !ok {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.pending[n]
	if p == nil {
		return nil
	}
	delete(cs.pending, n)
	delete(cs.byEvent, p.eventID)
	if cs.byOrig[idKey(p.origID)] == n {
		delete(cs.byOrig, idKey(p.origID))
	}
	if p.token != "" {
		delete(cs.progress, p.token)
	}
	return p
}

// cancelTarget maps a caller's notifications/cancelled to the internal id:
// by the request event named in its e tag when present (exact), else by
// the caller's JSON-RPC id (the latest request with that id).
func (cs *callerSession) cancelTarget(eventID string, origID any) (int64, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if n, ok := cs.byEvent[eventID]; ok && eventID != "" {
		return n, true
	}
	id, err := jsonrpc.MakeID(origID)
	if err != nil {
		return 0, false
	}
	n, ok := cs.byOrig[idKey(id)]
	return n, ok
}

// progressEvent returns the request event a progress token belongs to.
func (cs *callerSession) progressEvent(token string) string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.progress[token]
}

// firstReply reports whether discovery tags are still to be sent.
func (cs *callerSession) firstReply() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	first := !cs.announced
	cs.announced = true
	return first
}

func (cs *callerSession) latestWrapKind() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.wrapKind
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// progressToken returns params._meta.progressToken as a string key.
func progressToken(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Token any `json:"progressToken"`
		} `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.Meta.Token == nil {
		return ""
	}
	b, _ := json.Marshal(p.Meta.Token)
	return string(b)
}
