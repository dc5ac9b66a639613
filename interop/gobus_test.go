package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// These tests cross the languages: a stock ContextVM client calls a toolbus
// worker (bus.Server), and a toolbus caller (bus.Client) calls a stock
// ContextVM server, both through the toolbus relay.

type textIn struct {
	Text string `json:"text"`
}
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}
type addOut struct {
	Sum int `json:"sum"`
}
type slowIn struct {
	MS    int `json:"ms"`
	Steps int `json:"steps"`
}

// goTools is the worker's MCP server: the same tools as cvm-server.mjs,
// recording cancellations.
func goTools(cancelled *atomic.Int64) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-worker", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "slow with progress"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		for i := 1; i <= in.Steps; i++ {
			select {
			case <-ctx.Done():
				cancelled.Add(1)
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.MS/max(in.Steps, 1)) * time.Millisecond):
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps)})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return s
}

func startGoWorker(t *testing.T, r *testutil.Relay, key *signer.Local, cancelled *atomic.Int64) *bus.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := bus.NewServer(key, goTools(cancelled), &bus.ServerOptions{RelayPubKey: r.Server.PublicKey(),
		Name: "go-worker", Announce: true, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	select {
	case <-srv.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("worker not ready")
	}
	return srv
}

// A ContextVM client (official MCP TypeScript Client over @contextvm/sdk)
// calls a toolbus worker: gift-wrapped in members mode (the client does not
// authenticate: an anonymous wrap to a member), plaintext in open mode.
func TestJSClientCallsToolbusWorker(t *testing.T) {
	RequireJS(t)
	modes := []struct {
		name, encryption, auth string
		mutate                 func(*config.Config)
	}{
		{"encrypted/members", "required", "0", nil},
		{"plaintext/open", "disabled", "1", openMode},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := testutil.StartRelay(t, m.mutate)
			var cancelled atomic.Int64
			worker := startGoWorker(t, r, r.Member, &cancelled)
			res, err := RunCVMClient(t, map[string]string{
				"CLIENT_SK": keyHex(t, r.Admin), "RELAY_URL": r.URL, "SERVER_PK": worker.PublicKey(),
				"ENCRYPTION": m.encryption, "AUTH": m.auth,
				"ACTIONS": Actions(
					Action{Op: "list"},
					Action{Op: "call", Name: "echo", Args: map[string]any{"text": "from js"}},
					Action{Op: "call", Name: "add", Args: map[string]any{"a": 40, "b": 2}},
					Action{Op: "call", Name: "slow", Args: map[string]any{"ms": 300, "steps": 3}, Progress: true},
					Action{Op: "call", Name: "missing"},
				)})
			if err != nil {
				t.Fatalf("JS client: %v (%s)", err, res.failure())
			}
			wantTools(t, res.Steps[0], "echo", "add", "slow")
			if got := res.Steps[1].Result.Text(); got != "from js" {
				t.Fatalf("echo: %q", got)
			}
			if sc := string(res.Steps[2].Result.StructuredContent); !strings.Contains(sc, `"sum":42`) {
				t.Fatalf("add: %s", sc)
			}
			if p := res.Steps[3]; !p.OK || len(p.Progress) == 0 || p.Result.Text() != "done" {
				t.Fatalf("slow with progress: %+v", p)
			}
			miss := res.Steps[4].Result
			if miss == nil || !miss.IsError || !strings.Contains(string(miss.StructuredContent), `"not_found"`) {
				t.Fatalf("unknown tool: want an isError result with code not_found, got %+v", res.Steps[4])
			}
		})
	}
}

// A ContextVM client cancels a call on a toolbus worker; the worker's
// handler context is cancelled (toolbus maps notifications/cancelled to the
// request even though the client reuses nothing but its JSON-RPC id).
func TestJSClientCancelsToolbusCall(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	worker := startGoWorker(t, r, r.Member, &cancelled)
	res, err := RunCVMClient(t, map[string]string{
		"CLIENT_SK": keyHex(t, r.Admin), "RELAY_URL": r.URL, "SERVER_PK": worker.PublicKey(), "ENCRYPTION": "required",
		"ACTIONS": Actions(Action{Op: "cancel", Name: "slow", Args: map[string]any{"ms": 20000, "steps": 100}, AfterMs: 500}),
	})
	if err != nil || len(res.Steps) != 1 || !res.Steps[0].Cancelled {
		t.Fatalf("JS cancel: %v %+v", err, res)
	}
	deadline := time.Now().Add(10 * time.Second)
	for cancelled.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if cancelled.Load() == 0 {
		t.Fatal("the worker's handler was never cancelled")
	}
}

// A toolbus caller (bus.Client) calls a stock ContextVM server.
func TestBusClientCallsJSServer(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, nil)
	srv := StartCVMServerProc(t, map[string]string{"SERVER_SK": keyHex(t, r.Member), "RELAY_URL": r.URL,
		"ENCRYPTION": "optional", "AUTH": "1"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: r.Admin, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	client, err := bus.NewClient(ctx, conn, r.Admin, &bus.ClientOptions{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, wrap := range []bus.WrapMode{bus.WrapGift, bus.WrapNone, bus.WrapEphemeral} {
		out, err := client.CallTool(ctx, srv.PubKey, "echo", map[string]any{"text": fmt.Sprint("wrap ", wrap)}, bus.WithWrap(wrap))
		if err != nil || out.IsError || out.Content[0].(*mcp.TextContent).Text != fmt.Sprint("wrap ", wrap) {
			t.Fatalf("echo (wrap %d): %v %+v", wrap, err, out)
		}
	}
	var progress atomic.Int64
	out, err := client.CallTool(ctx, srv.PubKey, "slow", map[string]any{"ms": 300, "steps": 3},
		bus.WithProgress(func(*mcp.ProgressNotificationParams) { progress.Add(1) }))
	if err != nil || out.IsError || progress.Load() != 3 {
		t.Fatalf("slow: %v %+v, %d progress", err, out, progress.Load())
	}
	list, err := client.ListTools(ctx, srv.PubKey)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := json.Marshal(list.Tools)
	if !strings.Contains(string(names), `"add"`) {
		t.Fatalf("tools/list: %s", names)
	}
}
