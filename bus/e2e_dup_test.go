package bus

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// forgeReplies answers every tools/call addressed to worker, as soon as the
// relay shows it, with a reply that has the right e tag and id but is
// signed by forger (gift-wrapped, so the relay relays it from a non-member).
// Each forged reply is signalled on the returned channel once the relay
// has accepted it.
func forgeReplies(t *testing.T, url string, worker, forger *signer.Local) <-chan struct{} {
	t.Helper()
	watch := dialConn(t, url, worker, nil) // authenticated as the worker: sees plaintext calls to it
	pub := dialConn(t, url, nil, nil)
	sent := make(chan struct{}, 16)
	since := nostr.Now() - 2
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{KindMessage}, Tags: nostr.TagMap{"p": {worker.PublicKey()}}, Since: &since}}
	}
	forge := func(req *nostr.Event) {
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(req.Content), &call) != nil || call.Method != "tools/call" {
			return
		}
		content := `{"jsonrpc":"2.0","id":` + string(call.ID) + `,"result":{"content":[{"type":"text","text":"forged"}]}}`
		reply := NewMessage([]byte(content), req.PubKey, req.ID)
		ctx := context.Background()
		if err := forger.SignEvent(ctx, &reply); err != nil {
			return
		}
		out, err := Wrap(&reply, req.PubKey, KindGiftWrap)
		if err == nil && pub.Publish(ctx, out) == nil {
			sent <- struct{}{}
		}
	}
	sub, err := watch.Subscribe(testCtx(t), filters, func(ev *nostr.Event) { go forge(ev) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "forger EOSE", sub.EOSE())
	return sent
}

// TestClientIgnoresForgedReply: a reply to our call signed by someone other
// than the worker is ignored, and the worker's own reply, arriving after
// it, completes the call.
func TestClientIgnoresForgedReply(t *testing.T) {
	f := newBusFixture(t, nil)
	sent := forgeReplies(t, f.r.URL, f.r.Member, newKey(t))
	gate := make(chan struct{})
	go func() {
		<-sent
		close(gate) // the worker answers only once the forgery is out
	}()
	mcp.AddTool(f.tools.server, &mcp.Tool{Name: "gated", Description: "answer after the gate opens"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "gated", map[string]any{"text": "real"}, WithWrap(WrapNone))
	if err != nil || textOf(t, res) != "real" {
		t.Fatalf("want the worker's reply, got %v %+v", err, res)
	}
}

// TestClientTimesOutOnOnlyForgedReply: with no worker running, a forged
// reply alone never completes the call.
func TestClientTimesOutOnOnlyForgedReply(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	sent := forgeReplies(t, r.URL, r.Member, newKey(t))
	client := startClient(t, r.URL, r.Admin, nil)
	ctx, cancel := context.WithTimeout(testCtx(t), 2*time.Second)
	defer cancel()
	res, err := client.CallTool(ctx, r.Member.PublicKey(), "echo", map[string]any{"text": "x"}, WithWrap(WrapNone))
	if CodeOf(err) != CodeTimeout {
		t.Fatalf("want timeout, got %v %+v", err, res)
	}
	waitClosed(t, "the forged reply", chanOf(sent))
}

// TestWorkerDropsReWrappedCall: the same signed call arriving in a gift
// wrap, in plaintext and in a second gift wrap runs the tool once.
func TestWorkerDropsReWrappedCall(t *testing.T) {
	f := newBusFixture(t, nil)
	tap := tapReplies(t, f.r.URL, f.r.Admin, f.worker.PublicKey())
	pub := dialConn(t, f.r.URL, f.r.Admin, nil)
	call := rawCall(t, f.r.Admin, f.worker.PublicKey(), "once")
	for _, out := range []*nostr.Event{wrapped(t, call), call, wrapped(t, call)} {
		if err := pub.Publish(testCtx(t), out); err != nil {
			t.Fatal(err)
		}
	}
	// A later call, answered after the copies were handled (in order).
	sentinel := rawCall(t, f.r.Admin, f.worker.PublicKey(), "sentinel")
	if err := pub.Publish(testCtx(t), sentinel); err != nil {
		t.Fatal(err)
	}
	tap.replyTo(t, sentinel.ID)
	if n := f.tools.ran.Load(); n != 2 {
		t.Fatalf("tool ran %d times for one call (copies dropped?) and a sentinel, want 2", n)
	}
}

func wrapped(t *testing.T, inner *nostr.Event) *nostr.Event {
	t.Helper()
	out, err := Wrap(inner, Recipient(inner), KindGiftWrap)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWorkerDropsReplayedCall: after the worker reconnects, the relay's
// mailbox delivers a call it already answered again; it runs once.
func TestWorkerDropsReplayedCall(t *testing.T) {
	r, p := proxiedRelay(t) // everyone behind p, so AUTH names the relay's URL
	tools := newTestTools()
	worker, _ := startWorker(t, r.URL, r.Member, tools, &ServerOptions{RelayPubKey: r.Server.PublicKey()})
	tap := tapReplies(t, r.URL, r.Admin, worker.PublicKey())
	pub := dialConn(t, r.URL, r.Admin, nil)
	call := rawCall(t, r.Admin, worker.PublicKey(), "once")
	if err := pub.Publish(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	tap.replyTo(t, call.ID)
	p.SetRefuse(true)
	p.DropAll()
	waitFor(t, "the worker to lose its connection", func() bool { return worker.conn.Authed() == "" })
	// A later call, queued in the mailbox behind the first one, so both are
	// replayed in that order when the worker is back. It goes around the
	// proxy, gift-wrapped: the relay takes wraps to a member from anyone.
	sentinel := rawCall(t, r.Admin, worker.PublicKey(), "sentinel")
	if err := dialConn(t, "ws://"+r.Config.Listen, nil, nil).Publish(testCtx(t), wrapped(t, sentinel)); err != nil {
		t.Fatal(err)
	}
	p.SetRefuse(false)
	tap.replyTo(t, sentinel.ID)
	if n := tools.ran.Load(); n != 2 {
		t.Fatalf("tool ran %d times for one call (replayed) and a sentinel, want 2", n)
	}
}
