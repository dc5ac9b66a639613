package bus

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("empty result: %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestCallsPlaintextAndEncrypted(t *testing.T) {
	f := newBusFixture(t, nil)
	for _, mode := range []WrapMode{WrapNone, WrapGift, WrapEphemeral} {
		res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "hi"}, WithWrap(mode))
		if err != nil || res.IsError || textOf(t, res) != "hi" {
			t.Fatalf("mode %d: %v %+v", mode, err, res)
		}
	}
	res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "add", map[string]any{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"sum":5}` {
		t.Fatalf("structured: %s", sc)
	}
	list, err := f.client.ListTools(testCtx(t), f.worker.PublicKey())
	if err != nil || len(list.Tools) != 4 {
		t.Fatalf("tools/list: %v %+v", err, list)
	}
}

func TestToolErrorsAreClassifiedResults(t *testing.T) {
	f := newBusFixture(t, nil)
	cases := []struct {
		tool string
		args any
		code string
	}{
		{"nope", nil, CodeNotFound},
		{"add", map[string]any{"a": "two"}, CodeInvalidParams},
		{"fail", map[string]any{"text": "x"}, CodeInternal},
	}
	for _, tc := range cases {
		res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), tc.tool, tc.args)
		if err != nil {
			t.Fatalf("%s: transport error %v", tc.tool, err)
		}
		if e := ResultError(res); e == nil || e.Code != tc.code {
			t.Fatalf("%s: want code %s, got %+v", tc.tool, tc.code, e)
		}
	}
}

func TestProgressAndCancellation(t *testing.T) {
	f := newBusFixture(t, nil)
	var got atomic.Int64
	res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "slow", map[string]any{"steps": 3, "ms": 10},
		WithProgress(func(*mcp.ProgressNotificationParams) { got.Add(1) }))
	if err != nil || textOf(t, res) != "done" || got.Load() != 3 {
		t.Fatalf("progress: %v, %d notifications", err, got.Load())
	}

	ctx, cancel := context.WithCancel(testCtx(t))
	first := make(chan struct{}, 1)
	go func() {
		<-first
		cancel()
	}()
	_, err = f.client.CallTool(ctx, f.worker.PublicKey(), "slow", map[string]any{"steps": 1000, "ms": 20},
		WithProgress(func(*mcp.ProgressNotificationParams) {
			select {
			case first <- struct{}{}:
			default:
			}
		}))
	if err == nil {
		t.Fatal("cancelled call returned a result")
	}
	select {
	case <-f.tools.cancelled:
	case <-time.After(guard):
		t.Fatal("cancellation never reached the handler")
	}
}

func TestDeadline(t *testing.T) {
	f := newBusFixture(t, nil)
	ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
	defer cancel()
	_, err := f.client.CallTool(ctx, f.worker.PublicKey(), "slow", map[string]any{"steps": 100, "ms": 50})
	if CodeOf(err) != CodeTimeout {
		t.Fatalf("want timeout, got %v", err)
	}
}

func TestUnauthorizedCallerNeverReachesHandler(t *testing.T) {
	f := newBusFixture(t, nil)
	stranger := startClient(t, f.r.URL, newKey(t), nil) // gift wraps: the relay lets them through
	res, err := stranger.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeUnauthorized {
		t.Fatalf("want unauthorized, got %+v", res)
	}
	if n := f.tools.ran.Load(); n != 0 {
		t.Fatalf("handler ran %d times for an unauthorized caller", n)
	}
	_, err = stranger.ListTools(testCtx(t), f.worker.PublicKey())
	if CodeOf(err) != CodeUnauthorized {
		t.Fatalf("tools/list by stranger: want unauthorized, got %v", err)
	}
}

func TestQuota(t *testing.T) {
	f := newBusFixture(t, &ServerOptions{QuotaPerSecond: 0.01, QuotaBurst: 2})
	for i := range 2 {
		if res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}); err != nil || res.IsError {
			t.Fatalf("call %d within quota: %v %+v", i, err, res)
		}
	}
	res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"})
	if err != nil {
		t.Fatal(err)
	}
	e := ResultError(res)
	if e == nil || e.Code != CodeRateLimited || e.RetryAfter <= 0 {
		t.Fatalf("want rate_limited with retry_after_ms, got %+v", e)
	}
	if n := f.tools.ran.Load(); n != 2 {
		t.Fatalf("handler ran %d times, want 2", n)
	}
}

// TestWorkerKilledMidCall: the tool would finish well within the deadline,
// but the worker dies once the call is running (at its first progress
// report), so the caller gets no result and a classified failure at its
// deadline rather than a hang.
func TestWorkerKilledMidCall(t *testing.T) {
	f := newBusFixture(t, nil)
	killed := make(chan struct{})
	var once sync.Once
	kill := func(*mcp.ProgressNotificationParams) {
		once.Do(func() {
			f.cancel() // the worker stops serving and closes its sessions
			f.worker.conn.Close()
			close(killed)
		})
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 3*time.Second)
	defer cancel()
	start := time.Now()
	res, err := f.client.CallTool(ctx, f.worker.PublicKey(), "slow", map[string]any{"steps": 4, "ms": 100}, WithProgress(kill))
	waitClosed(t, "the worker to be killed", killed)
	if err == nil {
		t.Fatalf("call to a killed worker succeeded: %+v", res)
	}
	if c := CodeOf(err); c != CodeTimeout && c != CodeUnavailable {
		t.Fatalf("want timeout or unavailable, got %v", err)
	}
	if time.Since(start) > guard {
		t.Fatal("call outlived its deadline")
	}
}

func TestCallerReconnectsAndGetsResult(t *testing.T) {
	r, p := proxiedRelay(t)
	tools := newTestTools()
	worker, _ := startWorker(t, r.URL, r.Member, tools, &ServerOptions{RelayPubKey: r.Server.PublicKey()})
	client := startClient(t, "ws://"+p.Addr(), r.Admin, &ClientOptions{Wrap: WrapNone})
	go func() {
		time.Sleep(150 * time.Millisecond)
		p.DropAll()
	}()
	res, err := client.CallTool(testCtx(t), worker.PublicKey(), "slow", map[string]any{"steps": 4, "ms": 100})
	if err != nil || textOf(t, res) != "done" {
		t.Fatalf("after reconnect: %v %+v", err, res)
	}
}

func TestRevocationReachesWorker(t *testing.T) {
	f := newBusFixture(t, nil)
	if res, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}); err != nil || res.IsError {
		t.Fatalf("before: %v %+v", err, res)
	}
	if _, err := manage(t, f, "banpubkey", f.client.self); err != nil {
		t.Fatal(err)
	}
	before := f.tools.ran.Load()
	// The relay closes the banned caller's subscriptions: the call fails as
	// unauthorized without waiting for its deadline.
	_, err := f.client.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}, WithWrap(WrapGift))
	if CodeOf(err) != CodeUnauthorized {
		t.Fatalf("after ban: want unauthorized, got %v", err)
	}
	// The same key over an unauthenticated connection (as ContextVM clients
	// connect) still gets gift wraps relayed to the worker, which refuses:
	// it follows the relay's membership list.
	anon := dialConn(t, f.r.URL, nil, nil)
	banned, err := NewClient(testCtx(t), anon, f.client.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := banned.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeUnauthorized {
		t.Fatalf("revoked caller: want unauthorized, got %+v", res)
	}
	if f.tools.ran.Load() != before {
		t.Fatal("handler ran for a revoked caller")
	}
}

func TestAnnouncements(t *testing.T) {
	f := newBusFixture(t, &ServerOptions{Announce: true, Name: "tester", About: "test tools"})
	anns := queryKinds(t, f, KindServerAnnouncement, KindToolsList)
	if len(anns) != 2 {
		t.Fatalf("want 2 announcements, got %d", len(anns))
	}
	for _, ev := range anns {
		if ev.Kind == KindServerAnnouncement && (TagValue(ev, TagName) != "tester" || !HasTag(ev, TagSupportEncryption)) {
			t.Fatalf("11316 tags: %v", ev.Tags)
		}
		if ev.Kind == KindToolsList && !strings.Contains(ev.Content, `"echo"`) {
			t.Fatalf("11317: %s", ev.Content)
		}
	}
	mcp.AddTool(f.tools.server, &mcp.Tool{Name: "late", Description: "added later"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	waitFor(t, "re-announcement", func() bool {
		for _, ev := range queryKinds(t, f, KindToolsList) {
			if strings.Contains(ev.Content, `"late"`) {
				return true
			}
		}
		return false
	})
}

// TestWorkerResendsReplyAfterReconnect: the relay never sees the worker's
// answer (the connection dies with it), yet the caller gets it once the
// worker is back.
func TestWorkerResendsReplyAfterReconnect(t *testing.T) {
	r, p := proxiedRelay(t)
	tools := newTestTools()
	worker, _ := startWorker(t, "ws://"+p.Addr(), r.Member, tools, &ServerOptions{RelayPubKey: r.Server.PublicKey()})
	client := startClient(t, r.URL, r.Admin, &ClientOptions{Wrap: WrapNone})
	go func() {
		time.Sleep(150 * time.Millisecond) // the call is running: the next worker write is its answer
		p.SwallowNext()
	}()
	ctx, cancel := context.WithTimeout(testCtx(t), 15*time.Second)
	defer cancel()
	res, err := client.CallTool(ctx, worker.PublicKey(), "slow", map[string]any{"steps": 1, "ms": 600})
	if err != nil || textOf(t, res) != "done" {
		t.Fatalf("answer lost with the connection: %v %+v", err, res)
	}
	if n := tools.ran.Load(); n != 1 {
		t.Fatalf("tool ran %d times, want once", n)
	}
}
