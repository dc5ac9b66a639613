package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/signer"
)

// quiet is the logger of the bench's own bus parties: a failed call shows
// up as a failure of the run, so their logs would only repeat it.
var quiet = slog.New(slog.DiscardHandler)

// toolbusSide is the tool bus as users run it, against a toolbus relay: an
// echo worker (bus.Server over a go-sdk MCP server) and callers
// (bus.Client), each on its own bus.Conn authenticated as its own member
// key, all in this process.
type toolbusSide struct {
	worker  string
	clients []*bus.Client
	conns   []*bus.Conn // the worker's first
	stop    context.CancelFunc
	served  chan error // the worker's Serve result
}

func startToolbusSide(ctx context.Context, url string, bc *busCrew, n int) (side *busSide, err error) {
	t := &toolbusSide{worker: bc.worker.PublicKey(), stop: func() {}}
	defer func() {
		if err != nil {
			t.close()
		}
	}()
	if err := t.startWorker(ctx, url, bc); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	for _, key := range bc.callers[:n] {
		if err := t.addCaller(ctx, url, key); err != nil {
			return nil, fmt.Errorf("caller: %w", err)
		}
	}
	return &busSide{close: t.close, variants: []variant{
		{name: "plaintext", call: t.call(bus.WrapNone)},
		{name: "wrapped", call: t.call(bus.WrapGift)},
	}}, nil
}

// startWorker serves the echo tool to the crew's callers and waits until
// the worker's subscription is live.
func (t *toolbusSide) startWorker(ctx context.Context, url string, bc *busCrew) error {
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: bc.worker, Logger: quiet})
	if err != nil {
		return err
	}
	t.conns = append(t.conns, conn)
	var allow []string
	for _, k := range bc.callers {
		allow = append(allow, k.PublicKey())
	}
	srv, err := bus.NewServer(bc.worker, echoServer(), &bus.ServerOptions{Allow: allow, Logger: quiet})
	if err != nil {
		return err
	}
	serveCtx, stop := context.WithCancel(context.Background())
	t.stop, t.served = stop, make(chan error, 1)
	go func() { t.served <- srv.Serve(serveCtx, conn) }()
	select {
	case <-srv.Ready():
		return nil
	case err := <-t.served:
		t.served <- err // for close
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addCaller connects a caller as key.
func (t *toolbusSide) addCaller(ctx context.Context, url string, key *signer.Local) error {
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: key, Logger: quiet})
	if err != nil {
		return err
	}
	t.conns = append(t.conns, conn)
	c, err := bus.NewClient(ctx, conn, key, &bus.ClientOptions{Wrap: bus.WrapNone, Logger: quiet})
	if err != nil {
		return err
	}
	t.clients = append(t.clients, c)
	return nil
}

// call returns the callFunc of one wrap mode.
func (t *toolbusSide) call(mode bus.WrapMode) callFunc {
	return func(ctx context.Context, i int, text string) error {
		res, err := t.clients[i].CallTool(ctx, t.worker, "echo", map[string]any{"text": text}, bus.WithWrap(mode))
		if err != nil {
			return err
		}
		return checkEcho(res, text)
	}
}

func (t *toolbusSide) close() {
	for _, c := range t.clients {
		c.Close()
	}
	t.stop()
	if t.served != nil {
		<-t.served
	}
	for _, c := range t.conns {
		c.Close()
	}
}

// checkEcho accepts only a successful result whose one text is want.
func checkEcho(res *mcp.CallToolResult, want string) error {
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("echo returned an error or %d contents", len(res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != want {
		return errors.New("echo returned the wrong text")
	}
	return nil
}

type echoArgs struct {
	Text string `json:"text"`
}

// echoServer is an MCP server with one tool, echo, returning its text.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}
