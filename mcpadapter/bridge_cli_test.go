package mcpadapter

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
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

// countingUpstream is a go-sdk MCP server over streamable HTTP whose
// "echo" tool counts the calls that reached it.
func countingUpstream(t *testing.T) (url string, ran *atomic.Int64) {
	ran = new(atomic.Int64)
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream says " + in.Text}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL, ran
}

// runBridgeCLI runs `toolbus bridge --relay R --key-file F --name N ARGS`
// as key and returns once it logs that it is ready on the bus.
func runBridgeCLI(t *testing.T, r *testutil.Relay, key *signer.Local, args ...string) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := signer.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testutil.Binary(t, "toolbus"),
		append([]string{"bridge", "--relay", r.URL, "--key-file", keyFile, "--name", "up"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready, logged := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("bridge: " + sc.Text())
			if strings.Contains(sc.Text(), "bridge ready") {
				close(ready)
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-logged
		cmd.Wait()
	})
	select {
	case <-ready:
	case <-logged:
		t.Fatal("toolbus bridge exited before it was ready")
	case <-time.After(guard):
		t.Fatal("toolbus bridge not ready")
	}
}

// anonCaller calls over a connection that never authenticates, as
// ContextVM clients connect: a non-member's gift wraps still reach the
// bridge that way, so only the bridge's own check can refuse them.
func anonCaller(t *testing.T, r *testutil.Relay, key *signer.Local) *bus.Client {
	t.Helper()
	conn, err := bus.Dial(ctxT(t), r.URL, &bus.ConnOptions{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, err := bus.NewClient(ctxT(t), conn, key, &bus.ClientOptions{Wrap: bus.WrapGift})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// `toolbus bridge --url` puts a streamable HTTP MCP server on the bus: a
// bus caller lists its tools and calls them.
func TestBridgeURLModeCLI(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	url, ran := countingUpstream(t)
	runBridgeCLI(t, r, r.Member, "--url", url)
	caller := newBusCaller(t, r, r.Admin).client
	ctx := ctxT(t)
	list, err := caller.ListTools(ctx, r.Member.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "echo" || list.Tools[0].Description != "echoes text" {
		t.Fatalf("tools/list through the bridge: %+v", list.Tools)
	}
	res, err := caller.CallTool(ctx, r.Member.PublicKey(), "echo", map[string]any{"text": "hi"})
	if err != nil || res.IsError || textOf(res) != "upstream says hi" {
		t.Fatalf("tools/call through the bridge: %v %+v", err, res)
	}
	if ran.Load() != 1 {
		t.Fatalf("upstream ran %d calls, want 1", ran.Load())
	}
}

// A caller the bridge does not allow gets unauthorized, for tools/call and
// tools/list alike, and nothing reaches the upstream. By default the
// bridge serves the workspace members; with --allow, only those listed.
func TestBridgeAllowlist(t *testing.T) {
	listed := testutil.NewKey(t) // a member, on the explicit allowlist
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, listed.PublicKey())
	})
	outsider := testutil.NewKey(t) // no member at all
	for _, tc := range []struct {
		name             string
		allow            []string
		allowed, refused map[string]func(*testing.T) *bus.Client
	}{
		{name: "workspace members",
			allowed: map[string]func(*testing.T) *bus.Client{
				"member": func(t *testing.T) *bus.Client { return newBusCaller(t, r, r.Admin).client }},
			refused: map[string]func(*testing.T) *bus.Client{
				"non-member": func(t *testing.T) *bus.Client { return anonCaller(t, r, outsider) }}},
		{name: "explicit allowlist", allow: []string{"--allow", listed.NPub()},
			allowed: map[string]func(*testing.T) *bus.Client{
				"listed member": func(t *testing.T) *bus.Client { return newBusCaller(t, r, listed).client }},
			refused: map[string]func(*testing.T) *bus.Client{
				"unlisted member": func(t *testing.T) *bus.Client { return newBusCaller(t, r, r.Admin).client },
				"non-member":      func(t *testing.T) *bus.Client { return anonCaller(t, r, outsider) }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, ran := countingUpstream(t)
			runBridgeCLI(t, r, r.Member, append([]string{"--url", url}, tc.allow...)...)
			bridge, ctx := r.Member.PublicKey(), ctxT(t)
			for who, caller := range tc.refused {
				c := caller(t)
				res, err := c.CallTool(ctx, bridge, "echo", map[string]any{"text": "x"})
				if err != nil {
					t.Fatalf("%s: %v", who, err)
				}
				if e := bus.ResultError(res); e == nil || e.Code != bus.CodeUnauthorized {
					t.Errorf("%s: tools/call: want unauthorized, got %+v", who, res)
				}
				if _, err := c.ListTools(ctx, bridge); bus.CodeOf(err) != bus.CodeUnauthorized {
					t.Errorf("%s: tools/list: want unauthorized, got %v", who, err)
				}
			}
			if n := ran.Load(); n != 0 {
				t.Fatalf("a refused call reached the upstream (%d calls)", n)
			}
			// The same bridge serves the allowed caller: the refusals were
			// the allowlist's, not a broken bridge's.
			for who, caller := range tc.allowed {
				res, err := caller(t).CallTool(ctx, bridge, "echo", map[string]any{"text": "x"})
				if err != nil || res.IsError || textOf(res) != "upstream says x" {
					t.Errorf("%s: %v %+v", who, err, res)
				}
			}
			if n := ran.Load(); n != int64(len(tc.allowed)) {
				t.Errorf("upstream ran %d calls, want %d", n, len(tc.allowed))
			}
		})
	}
}
