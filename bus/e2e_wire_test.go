package bus

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// TestReplyKindFollowsRequest: the worker answers in the kind the call
// came in, as the caller sees it on the relay.
func TestReplyKindFollowsRequest(t *testing.T) {
	f := newBusFixture(t, nil)
	tap := tapReplies(t, f.r.URL, f.r.Admin, f.worker.PublicKey())
	modes := []struct {
		wrap WrapMode
		kind int
	}{{WrapNone, KindMessage}, {WrapGift, KindGiftWrap}, {WrapEphemeral, KindEphemeralGiftWrap}}
	for i, m := range modes {
		if res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}, WithWrap(m.wrap)); err != nil || res.IsError {
			t.Fatalf("mode %d: %v %+v", m.wrap, err, res)
		}
		if got := tap.wait(t, i+1)[i].kind; got != m.kind {
			t.Fatalf("call in kind %d answered in kind %d", m.kind, got)
		}
	}
}

// TestDiscoveryTagsOnFirstReplyOnly: the worker introduces itself on its
// first reply to a caller, and only then.
func TestDiscoveryTagsOnFirstReplyOnly(t *testing.T) {
	f := newBusFixture(t, &ServerOptions{Name: "tester"})
	tap := tapReplies(t, f.r.URL, f.r.Admin, f.worker.PublicKey())
	for range 2 {
		if _, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}, WithWrap(WrapNone)); err != nil {
			t.Fatal(err)
		}
	}
	replies := tap.wait(t, 2)
	first, second := replies[0].inner, replies[1].inner
	if !HasTag(first, TagSupportEncryption) || TagValue(first, TagName) != "tester" {
		t.Fatalf("first reply lacks the discovery tags: %v", first.Tags)
	}
	if HasTag(second, TagSupportEncryption) || HasTag(second, TagName) {
		t.Fatalf("later reply repeats the discovery tags: %v", second.Tags)
	}
}

type bigIn struct {
	Bytes int `json:"bytes"`
}

// TestReplyTooLargeToEncrypt: a result over the NIP-44 plaintext limit
// reaches a caller who called gift-wrapped as a clear tool error, at once.
func TestReplyTooLargeToEncrypt(t *testing.T) {
	f := newBusFixture(t, nil)
	mcp.AddTool(f.tools.server, &mcp.Tool{Name: "big", Description: "answer with bytes of text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Bytes)}}}, nil, nil
		})
	for _, mode := range []WrapMode{WrapGift, WrapEphemeral, WrapNone} {
		ctx, cancel := context.WithTimeout(testCtx(t), 5*time.Second) // well before guard: a lost reply shows as timeout
		res, err := f.client.CallTool(ctx, f.worker.PublicKey(), "big", map[string]any{"bytes": MaxPlaintext + 1}, WithWrap(mode))
		cancel()
		if err != nil {
			t.Fatalf("mode %d: want a tool error, got %v", mode, err)
		}
		if e := ResultError(res); e == nil || e.Code != CodeInternal || !strings.Contains(e.Message, "too large") {
			t.Fatalf("mode %d: want internal \"too large\", got %+v", mode, e)
		}
	}
	if res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "big", map[string]any{"bytes": 1000}); err != nil || res.IsError {
		t.Fatalf("a result within the limit: %v %+v", err, res)
	}
}

// TestHandlerErrorsGetNonZeroCodes: go-sdk passes a handler's plain Go
// error (or a JSON-RPC error with code 0) through; the caller still gets a
// classified tool error for tools/call and a non-zero JSON-RPC code for
// other requests.
func TestHandlerErrorsGetNonZeroCodes(t *testing.T) {
	f := newBusFixture(t, nil)
	f.tools.server.AddTool(&mcp.Tool{Name: "goerr", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("plain failure")
		})
	f.tools.server.AddPrompt(&mcp.Prompt{Name: "plain"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, errors.New("plain failure")
	})
	f.tools.server.AddPrompt(&mcp.Prompt{Name: "zero"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, &jsonrpc.Error{Code: 0, Message: "code zero"}
	})
	tap := tapReplies(t, f.r.URL, f.r.Admin, f.worker.PublicKey())
	res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "goerr", nil)
	if err != nil {
		t.Fatalf("tools/call: want a tool error, got %v", err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeInternal || !strings.Contains(e.Message, "plain failure") {
		t.Fatalf("tools/call: want internal \"plain failure\", got %+v", e)
	}
	for i, name := range []string{"plain", "zero"} {
		_, err := f.client.Call(testCtx(t), f.worker.PublicKey(), "prompts/get", map[string]any{"name": name}, WithWrap(WrapNone))
		if CodeOf(err) != CodeInternal {
			t.Fatalf("prompt %s: want internal, got %v", name, err)
		}
		var reply struct {
			Error *struct{ Code int64 } `json:"error"`
		}
		if err := json.Unmarshal([]byte(tap.wait(t, i+2)[i+1].inner.Content), &reply); err != nil || reply.Error == nil {
			t.Fatalf("prompt %s: reply is no JSON-RPC error: %v", name, err)
		}
		if reply.Error.Code == 0 {
			t.Fatalf("prompt %s: error sent with code 0", name)
		}
	}
}

// TestReplyRefusedByRelayForSize: a relay whose max_content_bytes is below
// the bus's own limit refuses a reply the worker thought fine; the caller
// still gets the short "too large" tool error, not a wait for its deadline.
func TestReplyRefusedByRelayForSize(t *testing.T) {
	r := testutil.StartRelay(t, func(c *config.Config) { c.Limits.MaxContentBytes = 20_000 })
	tools := newTestTools()
	mcp.AddTool(tools.server, &mcp.Tool{Name: "big", Description: "answer with bytes of text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Bytes)}}}, nil, nil
		})
	worker, cancel := startWorker(t, r.URL, r.Member, tools, &ServerOptions{RelayPubKey: r.Server.PublicKey()})
	defer cancel()
	client := startClient(t, r.URL, r.Admin, nil)
	ctx, stop := context.WithTimeout(testCtx(t), 5*time.Second) // a lost reply shows as timeout
	defer stop()
	res, err := client.CallTool(ctx, worker.PublicKey(), "big", map[string]any{"bytes": 30_000}, WithWrap(WrapNone))
	if err != nil {
		t.Fatalf("want a tool error, got %v", err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeInternal || !strings.Contains(e.Message, "too large") {
		t.Fatalf("want internal \"too large\", got %+v", e)
	}
}
