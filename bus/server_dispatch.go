package bus

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"
)

// dispatchTimeout bounds handing one message to its MCP session.
const dispatchTimeout = 30 * time.Second

// handle opens, checks and dispatches one incoming bus event.
func (s *Server) handle(ev *nostr.Event, snap *memberSet) {
	if s.seen.Seen(ev.ID) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dispatchTimeout)
	defer cancel()
	inner, wrapKind, ok := s.open(ctx, ev)
	if !ok {
		return
	}
	msg, err := Decode(inner)
	if err != nil {
		s.log.Debug("dropping undecodable bus message", "event", inner.ID, "err", err)
		return
	}
	caller := inner.PubKey
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			s.call(ctx, caller, m, inner.ID, wrapKind, snap)
		} else {
			s.notification(ctx, caller, m, ReplyTo(inner), snap)
		}
	case *jsonrpc.Response:
		if s.allowed(caller, snap) {
			if cs, err := s.session(ctx, caller, false); err == nil {
				cs.deliver(ctx, m) // the caller answering a server-initiated request
			}
		}
	}
}

// open returns the signed 25910 inside ev (unwrapping a gift wrap) and the
// wrap kind to answer with (0 for plaintext), or false to drop it.
func (s *Server) open(ctx context.Context, ev *nostr.Event) (*nostr.Event, int, bool) {
	if !IsWrapKind(ev.Kind) {
		if s.opts.Encryption == EncryptionRequired || ev.Kind != KindMessage || Recipient(ev) != s.self {
			return nil, 0, false
		}
		return ev, 0, true
	}
	if s.opts.Encryption == EncryptionDisabled {
		return nil, 0, false
	}
	inner, err := Unwrap(ctx, s.key, ev)
	if err != nil {
		s.log.Debug("dropping gift wrap", "event", ev.ID, "err", err)
		return nil, 0, false
	}
	if s.seen.Seen(inner.ID) {
		return nil, 0, false // the same call wrapped twice
	}
	return inner, ev.Kind, true
}

// call authorises a request, charges the caller's quota for tools/call, and
// hands it to the caller's MCP session. A refused call is answered here and
// never reaches a tool handler.
func (s *Server) call(ctx context.Context, caller string, req *jsonrpc.Request, eventID string, wrapKind int, snap *memberSet) {
	if !s.allowed(caller, snap) {
		s.refuse(ctx, caller, req, eventID, wrapKind, CodeUnauthorized,
			"caller "+shortKey(caller)+" is not allowed to use this worker", 0)
		return
	}
	if req.Method == "tools/call" && s.quota != nil {
		if ok, wait := s.quota.Allow(caller); !ok {
			s.refuse(ctx, caller, req, eventID, wrapKind, CodeRateLimited, "call quota exceeded", wait)
			return
		}
	}
	cs, err := s.session(ctx, caller, req.Method == "initialize")
	if err != nil {
		s.refuse(ctx, caller, req, eventID, wrapKind, CodeInternal, "worker could not open a session", 0)
		return
	}
	if err := cs.request(ctx, req, eventID, wrapKind); err != nil {
		s.refuse(ctx, caller, req, eventID, wrapKind, CodeUnavailable, "worker is busy", 0)
	}
}

// notification forwards a caller's notification to its session, rewriting
// the request id of notifications/cancelled to the internal one.
func (s *Server) notification(ctx context.Context, caller string, n *jsonrpc.Request, replyTo string, snap *memberSet) {
	if !s.allowed(caller, snap) {
		return
	}
	cs, err := s.session(ctx, caller, false)
	if err != nil {
		return
	}
	if n.Method == "notifications/cancelled" {
		var p map[string]any
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		internal, ok := cs.cancelTarget(replyTo, p["requestId"])
		if !ok {
			return
		}
		p["requestId"] = internal
		fwd := *n
		fwd.Params, _ = json.Marshal(p)
		n = &fwd
	}
	cs.deliver(ctx, n)
}

// refuse answers a call the worker will not run: tools/call gets a tool
// error result, anything else a JSON-RPC error with a non-zero code.
func (s *Server) refuse(ctx context.Context, caller string, req *jsonrpc.Request, eventID string, wrapKind int, code, msg string, wait time.Duration) {
	var resp *jsonrpc.Response
	if req.Method == "tools/call" {
		result, _ := json.Marshal(ToolError(code, msg, wait))
		resp = &jsonrpc.Response{ID: req.ID, Result: result}
	} else {
		rpcCode := int64(RPCUnauthorized)
		if code == CodeRateLimited {
			rpcCode = RPCRateLimited
		} else if code != CodeUnauthorized {
			rpcCode = jsonrpc.CodeInternalError
		}
		resp = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: rpcCode, Message: code + ": " + msg}}
	}
	if err := s.send(ctx, caller, resp, eventID, wrapKind, nil); err != nil {
		s.log.Warn("could not send refusal", "caller", caller, "err", err)
	}
}

func shortKey(pk string) string {
	if len(pk) > 12 {
		return pk[:12] + "…"
	}
	return pk
}
