package bus

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// testTools is a real MCP server whose tools record what happened to them,
// so tests can assert that a handler ran (or never ran) and saw its
// cancellation.
type testTools struct {
	server    *mcp.Server
	ran       atomic.Int64
	cancelled chan struct{}
}

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}
type addOut struct {
	Sum int `json:"sum"`
}
type slowIn struct {
	Steps int `json:"steps"`
	MS    int `json:"ms"`
}

func newTestTools() *testTools {
	tt := &testTools{cancelled: make(chan struct{}, 8)}
	s := mcp.NewServer(&mcp.Implementation{Name: "test-tools", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		tt.ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two integers"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		tt.ran.Add(1)
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "wait, reporting progress"}, tt.slow)
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "always fails"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		tt.ran.Add(1)
		return nil, nil, errors.New("it broke")
	})
	tt.server = s
	return tt
}

func (tt *testTools) slow(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
	tt.ran.Add(1)
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-ctx.Done():
			tt.cancelled <- struct{}{}
			return nil, nil, ctx.Err()
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
				Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)})
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
}

// busFixture is a relay, a worker serving testTools as r.Member (following
// the relay's membership list) and a client calling as r.Admin.
type busFixture struct {
	r      *testutil.Relay
	tools  *testTools
	worker *Server
	client *Client
	cancel context.CancelFunc
}

func startWorker(t *testing.T, url string, key *signer.Local, tools *testTools, opts *ServerOptions) (*Server, context.CancelFunc) {
	t.Helper()
	conn := dialConn(t, url, key, nil)
	if opts.Logger == nil {
		opts.Logger = testutil.Logger(t)
	}
	srv, err := NewServer(key, tools.server, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Serve(ctx, conn)
	t.Cleanup(cancel)
	select {
	case <-srv.Ready():
	case <-time.After(guard):
		t.Fatal("worker did not start")
	}
	return srv, cancel
}

func startClient(t *testing.T, url string, key *signer.Local, opts *ClientOptions) *Client {
	t.Helper()
	conn := dialConn(t, url, key, nil)
	c, err := NewClient(testCtx(t), conn, key, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newBusFixture(t *testing.T, opts *ServerOptions) *busFixture {
	r := testutil.StartRelay(t, nil)
	if opts == nil {
		opts = &ServerOptions{}
	}
	opts.RelayPubKey = r.Server.PublicKey()
	tools := newTestTools()
	worker, cancel := startWorker(t, r.URL, r.Member, tools, opts)
	client := startClient(t, r.URL, r.Admin, nil)
	return &busFixture{r: r, tools: tools, worker: worker, client: client, cancel: cancel}
}
