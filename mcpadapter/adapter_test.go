package mcpadapter

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/relay"
	"toolbus/signer"
)

const guard = 20 * time.Second

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

type textIn struct {
	Text string `json:"text"`
}
type slowIn struct {
	Steps int `json:"steps"`
	MS    int `json:"ms"`
}

// workerTools is a worker's real MCP server; cancelled counts handlers
// that saw their context cancelled.
func workerServer(cancelled *atomic.Int64) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		for i := 1; i <= in.Steps; i++ {
			select {
			case <-ctx.Done():
				cancelled.Add(1)
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i)})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return s
}

func startWorker(t *testing.T, r *testutil.Relay, key *signer.Local, name string, s *mcp.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Dial's ctx bounds only the dial: without Close the connection would
	// keep reconnecting (and logging) after the test.
	t.Cleanup(func() { conn.Close() })
	srv, err := bus.NewServer(key, s, &bus.ServerOptions{Name: name, Announce: true,
		RelayPubKey: r.Server.PublicKey(), Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	select {
	case <-srv.Ready():
	case <-time.After(guard):
		t.Fatal("worker not ready")
	}
}

// startAdapter runs the adapter as key and connects a go-sdk client to it
// with the given protocol version ("" = the SDK's latest).
func startAdapter(t *testing.T, r *testutil.Relay, key *signer.Local, version string, onList func()) (*Adapter, *mcp.ClientSession) {
	t.Helper()
	return startAdapterWith(t, r, key, version, onList, nil)
}

// startAdapterWith is startAdapter with adjust changing the Options first.
func startAdapterWith(t *testing.T, r *testutil.Relay, key *signer.Local, version string, onList func(), adjust func(*Options)) (*Adapter, *mcp.ClientSession) {
	t.Helper()
	ctx := ctxT(t)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client, err := bus.NewClient(ctx, conn, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Conn: conn, Client: client, RelayPubKey: r.Server.PublicKey(), Logger: testutil.Logger(t)}
	if adjust != nil {
		adjust(&opts)
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go a.Server().Run(context.Background(), st)
	copts := &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		progressSeen.Add(1)
	}}
	if onList != nil {
		copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { onList() }
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return a, cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]bool {
	res, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range res.Tools {
		out[tool.Name] = true
	}
	return out
}

func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// Both protocol generations: the stateless 2026-07-28 revision
// (server/discover) and 2025-11-25 (initialize handshake).
func TestAdapterBothProtocolGenerations(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			_, cs := startAdapter(t, r, r.Admin, version, nil)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s", got)
			}
			if names := toolNames(t, cs); !names["laptop__echo"] || !names["laptop__slow"] {
				t.Fatalf("tools: %v", names)
			}
			res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "laptop__echo", Arguments: map[string]any{"text": "hi " + version}})
			if err != nil || res.IsError || textOf(res) != "hi "+version {
				t.Fatalf("call: %v %+v", err, res)
			}
		})
	}
}

var progressSeen atomic.Int64

func TestAdapterProgressCancelAndErrors(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	_, cs := startAdapter(t, r, r.Admin, "2025-11-25", nil)

	params := &mcp.CallToolParams{Name: "laptop__slow", Arguments: map[string]any{"steps": 3, "ms": 10}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctxT(t), params)
	if err != nil || textOf(res) != "done" {
		t.Fatalf("slow: %v %+v", err, res)
	}
	waitUntil(t, "3 progress notifications at the agent", func() bool { return progressSeen.Load() == 3 })

	ctx, cancel := context.WithCancel(ctxT(t))
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "laptop__slow", Arguments: map[string]any{"steps": 1000, "ms": 20}})
	deadline := time.Now().Add(guard)
	for cancelled.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if cancelled.Load() == 0 {
		t.Fatal("cancelling in the agent did not cancel the worker's handler")
	}

	res, err = cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "laptop__echo", Arguments: map[string]any{"text": 5}})
	if err != nil {
		t.Fatalf("bad arguments must be a result, got protocol error %v", err)
	}
	if e := bus.ResultError(res); e == nil || e.Code != bus.CodeInvalidParams {
		t.Fatalf("bad arguments: %+v", res)
	}
}

// A worker call outlasting the adapter's CallTimeout (--timeout) comes back
// to the agent as a tool result classified timeout, not a protocol error,
// and the worker is told to stop.
func TestAdapterCallTimeoutIsAToolResult(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	_, cs := startAdapterWith(t, r, r.Admin, "", nil, func(o *Options) { o.CallTimeout = 300 * time.Millisecond })

	start := time.Now()
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "laptop__slow", Arguments: map[string]any{"steps": 1000, "ms": 20}})
	if err != nil {
		t.Fatalf("a timed-out call must be a tool result, got protocol error %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the call took %v: the timeout did not apply", took)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var sc struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(raw, &sc)
	if !res.IsError || sc.Error.Code != bus.CodeTimeout {
		t.Fatalf("want isError with structuredContent.error.code %q, got isError=%v %s", bus.CodeTimeout, res.IsError, raw)
	}
	waitUntil(t, "the worker's handler cancelled", func() bool { return cancelled.Load() > 0 })
}

// Tools follow announcements: a worker adding a tool, and a worker's key
// leaving the workspace, change the agent's list (with list_changed).
func TestAdapterFollowsAnnouncementsAndMembership(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	ws := workerServer(&cancelled)
	startWorker(t, r, r.Member, "laptop", ws)
	changed := make(chan struct{}, 16)
	a, cs := startAdapter(t, r, r.Admin, "", func() { changed <- struct{}{} })
	mcp.AddTool(ws, &mcp.Tool{Name: "late", Description: "added later"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
	})
	waitUntil(t, "new tool exposed", func() bool { return toolNames(t, cs)["laptop__late"] })
	select {
	case <-changed:
	case <-time.After(guard):
		t.Fatal("no notifications/tools/list_changed")
	}
	if _, err := relay.Manage(ctxT(t), r.HTTPURL, r.Admin, "banpubkey", r.Member.PublicKey()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "worker's tools removed", func() bool { return len(a.Tools()) == 0 })
	if names := toolNames(t, cs); len(names) != 0 {
		t.Fatalf("tools of a revoked worker still listed: %v", names)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
