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
	progress map[string]progressRoute // bridge-minted upstream token -> caller
	tokens   atomic.Uint64            // mints upstream progress tokens

	// restarting, when set, is told the delay before each restart of the
	// upstream (tests observe the backoff through it).
	restarting func(delay time.Duration)
}

// progressRoute is where an upstream call's progress goes: the caller's
// session and the token the caller chose. Callers pick tokens freely (many
// clients count from 1), so the upstream is given a token the bridge
// minted, unique across callers, and never sees the caller's.
type progressRoute struct {
	session *mcp.ServerSession
	token   any
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
	b := &Bridge{opts: opts, log: opts.Logger, ready: make(chan struct{}), progress: map[string]progressRoute{}}
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
		if b.restarting != nil {
			b.restarting(delay)
		}
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
// of the call it reports on, under that caller's own token. Only the
// progress itself is passed on: the upstream's _meta stays with the bridge.
func (b *Bridge) forwardProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return // not a token the bridge minted
	}
	b.mu.Lock()
	route, ok := b.progress[tok]
	b.mu.Unlock()
	if ok {
		route.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: route.token,
			Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}

// routeProgress mints the upstream token for one call whose caller asked
// for progress with token; done forgets it when the call ends.
func (b *Bridge) routeProgress(ss *mcp.ServerSession, token any) (upstream string, done func()) {
	upstream = fmt.Sprintf("toolbus-bridge-%d", b.tokens.Add(1))
	b.mu.Lock()
	b.progress[upstream] = progressRoute{session: ss, token: token}
	b.mu.Unlock()
	return upstream, func() {
		b.mu.Lock()
		delete(b.progress, upstream)
		b.mu.Unlock()
	}
}
