package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// fromSession publishes what a caller's MCP session writes: responses go to
// the request's event (original id restored, tool failures turned into
// classified results), progress to the request it reports on, anything
// else to the caller. A publish failure is logged, not returned: returning
// it would tear down the caller's whole session for one lost message.
func (s *Server) fromSession(ctx context.Context, cs *callerSession, m jsonrpc.Message) error {
	switch m := m.(type) {
	case *jsonrpc.Response:
		p := cs.take(m.ID)
		if p == nil {
			return nil
		}
		s.respond(ctx, cs, p, &jsonrpc.Response{ID: p.origID, Result: m.Result, Error: wireError(m.Error)})
	case *jsonrpc.Request:
		replyTo := ""
		if m.Method == "notifications/progress" {
			replyTo = cs.progressEvent(progressTokenOf(m.Params))
		}
		if err := s.send(ctx, cs.caller, m, replyTo, cs.latestWrapKind(), nil); err != nil {
			s.log.Debug("could not forward to caller", "method", m.Method, "err", err)
		}
	}
	return nil
}

// respond sends the answer to one request.
func (s *Server) respond(ctx context.Context, cs *callerSession, p *pendingRequest, resp *jsonrpc.Response) {
	if p.method == "tools/call" {
		resp = toolResponse(resp)
	}
	var tags []nostr.Tag
	if cs.firstReply() {
		tags = s.discoveryTags()
	}
	err := s.send(ctx, cs.caller, resp, p.eventID, p.wrapKind, tags)
	if errors.Is(err, ErrTooLarge) || refusedAsTooLarge(err) {
		err = s.send(ctx, cs.caller, tooLargeAnswer(resp, p.method, err), p.eventID, p.wrapKind, tags)
	}
	if err != nil {
		s.log.Warn("could not send response", "caller", shortKey(cs.caller), "method", p.method, "err", err)
	}
}

// send signs msg as a 25910 to caller (replying to replyTo when set), wraps
// it when wrapKind is a gift-wrap kind, and publishes it.
func (s *Server) send(ctx context.Context, caller string, msg jsonrpc.Message, replyTo string, wrapKind int, tags []nostr.Tag) error {
	content, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	// The relay would refuse it, and a refused reply leaves the caller
	// waiting until its deadline; respond turns this into a short answer.
	if wrapKind == 0 && len(content) > MaxPlaintext {
		return fmt.Errorf("%w: content is %d bytes, limit %d", ErrTooLarge, len(content), MaxPlaintext)
	}
	ev := NewMessage(content, caller, replyTo, tags...)
	if err := s.key.SignEvent(ctx, &ev); err != nil {
		return err
	}
	out := &ev
	if wrapKind != 0 {
		if out, err = Wrap(&ev, caller, wrapKind); err != nil {
			return err
		}
	}
	return s.publish(ctx, out)
}

// publish sends ev, again after a reconnection when the connection dropped
// before the relay's OK: a computed answer is not thrown away because the
// relay dropped this worker (a full outbound queue under load, a restart).
// Callers drop a repeat by its inner id, so sending twice is harmless.
func (s *Server) publish(ctx context.Context, ev *nostr.Event) error {
	for {
		err := s.conn.Publish(ctx, ev)
		if !errors.Is(err, ErrDisconnected) || ctx.Err() != nil {
			return err
		}
		s.log.Debug("connection lost before the relay acknowledged a reply; sending it again", "event", ev.ID)
	}
}

// discoveryTags go on the first reply to each caller, as ContextVM servers do.
func (s *Server) discoveryTags() []nostr.Tag {
	var tags []nostr.Tag
	for _, kv := range [][2]string{{TagName, s.opts.Name}, {TagAbout, s.opts.About}, {TagWebsite, s.opts.Website}} {
		if kv[1] != "" {
			tags = append(tags, nostr.Tag{kv[0], kv[1]})
		}
	}
	if s.opts.Encryption != EncryptionDisabled {
		tags = append(tags, nostr.Tag{TagSupportEncryption}, nostr.Tag{TagSupportEncryptionEphemeral})
	}
	return tags
}

// wireError gives every error a JSON-RPC code: go-sdk encodes a plain Go
// error with code 0, which clients cannot classify.
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return we
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// toolResponse turns a failed tools/call into a classified error result.
func toolResponse(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error != nil {
		var we *jsonrpc.Error
		errors.As(resp.Error, &we)
		result, _ := json.Marshal(ToolError(classifyRPC(we), we.Message, 0))
		return &jsonrpc.Response{ID: resp.ID, Result: result}
	}
	if !bytes.Contains(resp.Result, []byte(`"isError":true`)) {
		return resp
	}
	var res mcp.CallToolResult
	if json.Unmarshal(resp.Result, &res) != nil {
		return resp
	}
	classifyResult(&res)
	result, err := json.Marshal(&res)
	if err != nil {
		return resp
	}
	return &jsonrpc.Response{ID: resp.ID, Result: result}
}

// refusedAsTooLarge reports whether the relay refused an event for its
// size: a relay may set max_content_bytes below MaxPlaintext, and the
// caller must then hear why rather than wait for its deadline.
func refusedAsTooLarge(err error) bool {
	var rej *RejectedError
	return errors.As(err, &rej) && rej.Prefix() == "invalid" && strings.Contains(rej.Reason, "too large")
}

// tooLargeAnswer replaces a reply that does not fit one event (see
// ErrTooLarge).
func tooLargeAnswer(resp *jsonrpc.Response, method string, cause error) *jsonrpc.Response {
	msg := fmt.Sprintf("%v; ask for less (a result must fit one event)", cause)
	if method == "tools/call" {
		result, _ := json.Marshal(ToolError(CodeInternal, msg, 0))
		return &jsonrpc.Response{ID: resp.ID, Result: result}
	}
	return &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}
}

func progressTokenOf(params json.RawMessage) string {
	var p struct {
		Token any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil || p.Token == nil {
		return ""
	}
	b, _ := json.Marshal(p.Token)
	return string(b)
}
