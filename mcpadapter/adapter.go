package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/mcpadapter/sanitize"
	"toolbus/signer"
)

// DefaultCallTimeout bounds a forwarded call: long enough for the shell
// tool's 600 s maximum.
const DefaultCallTimeout = 11 * time.Minute

// Options configures New.
type Options struct {
	// Conn is the relay connection (authenticated as the user) and Client
	// the bus caller on it.
	Conn   *bus.Conn
	Client *bus.Client
	// RelayPubKey is the relay's key, whose membership list says whose
	// workers are callable. Required unless Workers is set.
	RelayPubKey string
	// Workers, when set, are the only workers exposed (hex pubkeys).
	Workers []string
	// Flat exposes the one worker in Workers as if the agent talked to it
	// directly: its tools under their own names (no `<worker>__` prefix),
	// and its resources, resource templates, prompts and completions too.
	// It needs exactly one worker, so no two workers' names can collide.
	Flat bool
	// CallTimeout bounds each forwarded call; default DefaultCallTimeout.
	CallTimeout time.Duration
	// Name and Version identify the adapter's MCP server.
	Name, Version string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Key is the user's key, as on Conn. With it (and without Flat) the
	// adapter also offers the workspace tools (channels, read_channel,
	// search, inbox, post), which sign posts with it.
	Key signer.Signer
	// Sanitizer cleans the chat content the workspace tools return; nil
	// means sanitize.New(sanitize.Options{}). Tests pass a disabled one.
	Sanitizer *sanitize.Sanitizer
}

// Adapter is the MCP server a local agent talks to.
type Adapter struct {
	opts   Options
	server *mcp.Server
	dir    *directory
	log    *slog.Logger

	mu        sync.Mutex
	installed map[string]binding
	schemas   map[string]*mcp.Tool
	flat      flatState // Options.Flat only
}

// New builds the adapter; Start begins discovery.
func New(opts Options) (*Adapter, error) {
	if opts.Conn == nil || opts.Client == nil {
		return nil, errors.New("mcpadapter: Conn and Client are required")
	}
	if opts.RelayPubKey == "" && len(opts.Workers) == 0 {
		return nil, errors.New("mcpadapter: need RelayPubKey (to follow members) or Workers")
	}
	if opts.Flat && len(opts.Workers) != 1 {
		return nil, errors.New("mcpadapter: Flat needs exactly one worker in Workers")
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Name == "" {
		opts.Name = "toolbus"
	}
	if opts.Version == "" {
		opts.Version = "1"
	}
	a := &Adapter{opts: opts, log: opts.Logger, dir: newDirectory(opts.RelayPubKey, opts.Workers, opts.Flat),
		installed: map[string]binding{}, schemas: map[string]*mcp.Tool{}}
	so := &mcp.ServerOptions{Instructions: instructions, HasTools: true}
	if opts.Flat {
		so.Instructions = flatInstructions
		so.CompletionHandler = a.complete
	}
	a.server = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, so)
	a.addWorkspaceTools()
	return a, nil
}

const instructions = "Tools named <worker>__<tool> run on toolbus workers of your team's relay, " +
	"on their machines. Their errors come back as tool results with a code " +
	"(invalid_params, not_found, unauthorized, rate_limited, timeout, unavailable, internal)."

const flatInstructions = "These tools run on a toolbus worker of your team's relay, on its machine. " +
	"Their errors come back as tool results with a code " +
	"(invalid_params, not_found, unauthorized, rate_limited, timeout, unavailable, internal)."

// Server is the MCP server to serve over stdio or HTTP.
func (a *Adapter) Server() *mcp.Server { return a.server }

// Start subscribes to announcements and membership and returns once the
// stored ones are in, so the first tools/list is already complete. Tools
// then follow the announcements live (notifications/tools/list_changed).
func (a *Adapter) Start(ctx context.Context) error {
	sub, err := a.opts.Conn.Subscribe(ctx, a.dir.filters, a.onEvent, nil)
	if err != nil {
		return err
	}
	select {
	case <-sub.EOSE():
	case <-sub.Done():
		return fmt.Errorf("mcpadapter: discovery subscription: %w", sub.Err())
	case <-ctx.Done():
		return ctx.Err()
	}
	a.sync()
	return nil
}

func (a *Adapter) onEvent(ev *nostr.Event) {
	if a.dir.apply(ev) {
		a.sync()
	}
}

// sync makes the server's tools match the directory: stale names removed,
// new or changed ones (re)added. go-sdk tells connected agents with
// notifications/tools/list_changed.
func (a *Adapter) sync() {
	want, tools := a.dir.snapshot()
	a.mu.Lock()
	defer a.mu.Unlock()
	var stale []string
	for name, b := range a.installed {
		if nb, ok := want[name]; !ok || nb != b || !reflect.DeepEqual(a.schemas[name], tools[b]) {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		a.server.RemoveTools(stale...)
		for _, n := range stale {
			delete(a.installed, n)
			delete(a.schemas, n)
		}
	}
	for name, b := range want {
		if _, ok := a.installed[name]; ok {
			continue
		}
		if err := a.install(name, b, tools[b]); err != nil {
			a.log.Warn("skipping a worker tool", "tool", b.tool, "worker", b.worker, "err", err)
			continue
		}
		a.installed[name], a.schemas[name] = b, tools[b]
	}
	if a.opts.Flat {
		a.syncFlat()
	}
}

// install adds one proxied tool. A worker's announcement is untrusted
// input: go-sdk panics on schemas it rejects, so that is caught here.
func (a *Adapter) install(name string, b binding, remote *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid tool definition: %v", r)
		}
	}()
	t := &mcp.Tool{Name: name, Title: remote.Title, Description: remote.Description,
		InputSchema: remote.InputSchema, OutputSchema: remote.OutputSchema, Annotations: remote.Annotations}
	if t.InputSchema == nil {
		t.InputSchema = map[string]any{"type": "object"}
	}
	if _, err := json.Marshal(t); err != nil {
		return err
	}
	a.server.AddTool(t, a.proxy(b))
	return nil
}

// Tools returns the exposed names and what they map to (for tests and
// diagnostics).
func (a *Adapter) Tools() map[string][2]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string][2]string{}
	for n, b := range maps.All(a.installed) {
		out[n] = [2]string{b.worker, b.tool}
	}
	return out
}
