package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BridgeOptions configures a Bridge.
type BridgeOptions struct {
	// Name identifies the bridged server on the bus.
	Name string
	// Command runs the upstream server as a child speaking MCP over stdio.
	Command []string
	// URL reaches an upstream streamable HTTP server instead.
	URL string
	// Env is the child's environment (default: the process environment,
	// from which toolbus already removed NOSTR_PRIVATE_KEY).
	Env []string
	// MinBackoff and MaxBackoff bound the delay before restarting a child
	// that died; defaults 500 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Bridge mirrors an upstream MCP server into a local mcp.Server (tools,
// resources, resource templates, prompts) that a bus.Server puts on the
// bus. The mirror follows the upstream's list changes; a child that dies is
// restarted with backoff, and calls made meanwhile fail as unavailable.
type Bridge struct {
	opts     BridgeOptions
	server   *mcp.Server
	log      *slog.Logger
	upstream atomic.Pointer[mcp.ClientSession]
	ready    chan struct{}
	once     sync.Once

	mu       sync.Mutex
	mirrored mirrorState
	progress map[any]*mcp.ServerSession // upstream progress token -> caller
}

// NewBridge returns a bridge; Run connects it.
func NewBridge(opts BridgeOptions) (*Bridge, error) {
	if (len(opts.Command) == 0) == (opts.URL == "") {
		return nil, errors.New("mcpadapter: a bridge needs either a command or a URL")
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	b := &Bridge{opts: opts, log: opts.Logger, ready: make(chan struct{}), progress: map[any]*mcp.ServerSession{}}
	// CompletionHandler: argument completion belongs with the mirrored
	// prompts and resource templates, so it is forwarded too.
	b.server = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: "bridge"},
		&mcp.ServerOptions{HasTools: true, CompletionHandler: b.complete})
	return b, nil
}

// Server is the mirror to put on the bus.
func (b *Bridge) Server() *mcp.Server { return b.server }

// Ready is closed once the upstream is connected and mirrored.
func (b *Bridge) Ready() <-chan struct{} { return b.ready }

// Run keeps the upstream connected until ctx ends.
func (b *Bridge) Run(ctx context.Context) error {
	delay := b.opts.MinBackoff
	for {
		start := time.Now()
		err := b.session(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Since(start) > 2*b.opts.MaxBackoff {
			delay = b.opts.MinBackoff // it ran fine for a while: start over
		}
		b.log.Warn("upstream MCP server stopped; restarting", "name", b.opts.Name, "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, b.opts.MaxBackoff)
	}
}

// session connects once, mirrors, and waits for the upstream to end.
func (b *Bridge) session(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolbus-bridge", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { poke() },
		ResourceListChangedHandler:  func(context.Context, *mcp.ResourceListChangedRequest) { poke() },
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { poke() },
		ProgressNotificationHandler: b.forwardProgress,
	})
	cs, err := client.Connect(ctx, b.transport(), nil)
	if err != nil {
		return fmt.Errorf("connect upstream: %w", err)
	}
	defer cs.Close()
	b.upstream.Store(cs)
	defer b.upstream.Store(nil)
	if err := b.mirror(ctx, cs); err != nil {
		return err
	}
	b.once.Do(func() { close(b.ready) })
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("upstream ended: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
			if err := b.mirror(ctx, cs); err != nil {
				b.log.Warn("re-mirroring upstream failed", "err", err)
			}
		}
	}
}

func (b *Bridge) transport() mcp.Transport {
	if b.opts.URL != "" {
		return &mcp.StreamableClientTransport{Endpoint: b.opts.URL}
	}
	cmd := exec.Command(b.opts.Command[0], b.opts.Command[1:]...)
	cmd.Env = b.opts.Env
	return &mcp.CommandTransport{Command: cmd}
}

// forwardProgress hands an upstream progress notification to the caller
// whose request carries that token.
func (b *Bridge) forwardProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	b.mu.Lock()
	ss := b.progress[req.Params.ProgressToken]
	b.mu.Unlock()
	if ss != nil {
		ss.NotifyProgress(ctx, req.Params)
	}
}
