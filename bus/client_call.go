package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// CallOption adjusts one call.
type CallOption func(*callConfig)

type callConfig struct {
	progress func(*mcp.ProgressNotificationParams)
	wrap     *WrapMode
}

// WithProgress asks the worker for progress notifications and passes each
// to fn (on the connection's delivery goroutine: return quickly).
func WithProgress(fn func(*mcp.ProgressNotificationParams)) CallOption {
	return func(c *callConfig) { c.progress = fn }
}

// WithWrap overrides the client's WrapMode for one call.
func WithWrap(m WrapMode) CallOption {
	return func(c *callConfig) { c.wrap = &m }
}

// CallTool calls a tool. A tool failure is a result with IsError (see
// ResultError); an error means the call produced no result (*Error).
func (c *Client) CallTool(ctx context.Context, server, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := c.Call(ctx, server, "tools/call", map[string]any{"name": name, "arguments": args}, opts...)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &Error{Code: CodeInternal, Message: "worker sent an invalid tools/call result: " + err.Error()}
	}
	return &res, nil
}

// ListTools lists a worker's tools.
func (c *Client) ListTools(ctx context.Context, server string) (*mcp.ListToolsResult, error) {
	raw, err := c.Call(ctx, server, "tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &Error{Code: CodeInternal, Message: "worker sent an invalid tools/list result: " + err.Error()}
	}
	return &res, nil
}

// Call sends a JSON-RPC request to server and waits for its response until
// ctx ends (or the client's default timeout when ctx has no deadline). When
// ctx ends first, the worker is told with notifications/cancelled.
func (c *Client) Call(ctx context.Context, server, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	cfg := callConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	id := c.ids.Add(1)
	body, err := c.requestParams(params, id, cfg.progress != nil)
	if err != nil {
		return nil, &Error{Code: CodeInvalidParams, Message: err.Error()}
	}
	rpcID, _ := jsonrpc.MakeID(float64(id))
	wrap := c.opts.Wrap
	if cfg.wrap != nil {
		wrap = *cfg.wrap
	}
	ev, out, err := c.build(ctx, server, &jsonrpc.Request{ID: rpcID, Method: method, Params: body}, "", wrap)
	if err != nil {
		return nil, err
	}
	call := &pendingCall{server: server, reply: make(chan *jsonrpc.Response, 1), progress: cfg.progress}
	c.mu.Lock()
	c.pending[ev.ID] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, ev.ID)
		c.mu.Unlock()
	}()
	if err := c.publish(ctx, out); err != nil {
		return nil, err
	}
	select {
	case resp := <-call.reply:
		return responseResult(resp)
	case <-c.sub.Done():
		return nil, subscriptionLost(c.sub.Err())
	case <-ctx.Done():
		c.cancelRemote(server, rpcID, ev.ID, wrap)
		return nil, ctxError(ctx, method)
	}
}

// requestParams marshals params, adding _meta.progressToken when asked.
func (c *Client) requestParams(params any, id int64, progress bool) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil || !progress {
		return raw, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("progress needs object params")
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = fmt.Sprintf("%s-%d", c.self[:8], id)
	m["_meta"] = meta
	return json.Marshal(m)
}

// build signs msg as a 25910 for server and wraps it per mode; it returns
// the inner event (whose id replies refer to) and the event to publish.
func (c *Client) build(ctx context.Context, server string, msg jsonrpc.Message, replyTo string, wrap WrapMode) (*nostr.Event, *nostr.Event, error) {
	content, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, nil, &Error{Code: CodeInvalidParams, Message: err.Error()}
	}
	ev := NewMessage(content, server, replyTo, c.discoveryTags(server)...)
	if err := c.key.SignEvent(ctx, &ev); err != nil {
		return nil, nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	if wrap == WrapNone {
		return &ev, &ev, nil
	}
	out, err := Wrap(&ev, server, wrap.kind())
	if err != nil {
		return nil, nil, &Error{Code: CodeInvalidParams, Message: err.Error()}
	}
	return &ev, out, nil
}

// discoveryTags go on the first message to each worker (ContextVM style).
func (c *Client) discoveryTags(server string) []nostr.Tag {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.greeted[server] {
		return nil
	}
	c.greeted[server] = true
	return []nostr.Tag{{TagSupportEncryption}, {TagSupportEncryptionEphemeral}}
}

// publish sends ev, again after a reconnection if the connection dropped
// before the relay's OK (the relay drops a repeated id as a duplicate).
func (c *Client) publish(ctx context.Context, ev *nostr.Event) error {
	for {
		err := c.conn.Publish(ctx, ev)
		var rej *RejectedError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrDisconnected):
			continue
		case errors.As(err, &rej):
			return &Error{Code: rejectCode(rej.Prefix()), Message: "relay refused the call: " + rej.Reason}
		case ctx.Err() != nil:
			return ctxError(ctx, "publish")
		default:
			return &Error{Code: CodeUnavailable, Message: err.Error()}
		}
	}
}

// cancelRemote tells the worker to stop (best effort, short deadline).
func (c *Client) cancelRemote(server string, id jsonrpc.ID, eventID string, wrap WrapMode) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "caller cancelled"})
	n := &jsonrpc.Request{Method: "notifications/cancelled", Params: params}
	if _, out, err := c.build(ctx, server, n, eventID, wrap); err == nil {
		c.conn.Publish(ctx, out)
	}
}

// subscriptionLost classifies the end of the reply subscription (the relay
// closed it: membership revoked, say), which no reply can follow.
func subscriptionLost(err error) error {
	var rej *RejectedError
	if errors.As(err, &rej) {
		return &Error{Code: rejectCode(rej.Prefix()), Message: "relay closed the reply subscription: " + rej.Reason}
	}
	return &Error{Code: CodeUnavailable, Message: "reply subscription ended"}
}

func responseResult(resp *jsonrpc.Response) (json.RawMessage, error) {
	if resp.Error == nil {
		return resp.Result, nil
	}
	var we *jsonrpc.Error
	if !errors.As(resp.Error, &we) {
		return nil, &Error{Code: CodeInternal, Message: resp.Error.Error()}
	}
	code := classifyRPC(we)
	if code == CodeInternal && we.Code == jsonrpc.CodeInvalidParams {
		code = CodeInvalidParams
	}
	return nil, &Error{Code: code, Message: we.Message}
}

func ctxError(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Message: what + ": no response before the deadline"}
	}
	return fmt.Errorf("bus: %s: %w", what, ctx.Err())
}

func rejectCode(prefix string) string {
	switch prefix {
	case "auth-required", "restricted", "blocked":
		return CodeUnauthorized
	case "rate-limited":
		return CodeRateLimited
	case "invalid":
		return CodeInvalidParams
	default:
		return CodeUnavailable
	}
}
