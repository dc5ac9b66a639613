package triggers_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
	"toolbus/tools"
	"toolbus/triggers"
)

// fixture is a relay, a worker serving test tools and the built-in shell,
// a trigger key that is a workspace member, and a channel it belongs to.
type fixture struct {
	t       *testing.T
	r       *testutil.Relay
	worker  *signer.Local
	trig    *signer.Local
	tools   *testTools
	member  *bus.Conn // r.Member's connection
	channel string
	opts    fixtureOptions
	proxy   *relayProxy // with opts.proxy
	logs    logRecorder // what every runner of the fixture logged
}

// testTools records what ran: echo calls in order, a block tool that
// waits for the test to release it, a slow tool that keeps count of the
// calls under way, and a fail tool whose result is an error.
type testTools struct {
	mu      sync.Mutex
	echoed  []string
	blocked int
	failed  int
	started chan string
	release chan struct{}

	// slow: calls under way now and at most, overall and per trigger, and
	// each trigger's texts in the order they started.
	inflight, maxInflight int
	perTrigger, maxPer    map[string]int
	order                 map[string][]string
}

func newTestTools() *testTools {
	return &testTools{started: make(chan string, 8), release: make(chan struct{}),
		perTrigger: map[string]int{}, maxPer: map[string]int{}, order: map[string][]string{}}
}

func (tt *testTools) echoes() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]string(nil), tt.echoed...)
}

func (tt *testTools) blocks() int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.blocked
}

func (tt *testTools) fails() int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.failed
}

type textIn struct {
	Text string `json:"text"`
}

type slowIn struct {
	Trigger string `json:"trigger"`
	Text    string `json:"text"`
}

// slowFor is how long a slow call takes: long enough for calls sent
// together to overlap at the worker.
const slowFor = 300 * time.Millisecond

func (tt *testTools) register(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"}, func(ctx context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		tt.mu.Lock()
		tt.echoed = append(tt.echoed, in.Text)
		tt.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "wait for the test"}, func(ctx context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		tt.mu.Lock()
		tt.blocked++
		tt.mu.Unlock()
		tt.started <- in.Text
		<-tt.release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unblocked: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "take a while"}, func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		tt.mu.Lock()
		tt.inflight++
		tt.maxInflight = max(tt.maxInflight, tt.inflight)
		tt.perTrigger[in.Trigger]++
		tt.maxPer[in.Trigger] = max(tt.maxPer[in.Trigger], tt.perTrigger[in.Trigger])
		tt.order[in.Trigger] = append(tt.order[in.Trigger], in.Text)
		tt.mu.Unlock()
		select {
		case <-time.After(slowFor):
		case <-ctx.Done():
		}
		tt.mu.Lock()
		tt.inflight--
		tt.perTrigger[in.Trigger]--
		tt.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "fail as a tool does"}, func(ctx context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		tt.mu.Lock()
		tt.failed++
		tt.mu.Unlock()
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "broken: " + in.Text}}}, nil, nil
	})
}

// recordingHandler passes log records on and keeps their messages.
type recordingHandler struct {
	slog.Handler
	rec *logRecorder
}

func (h recordingHandler) Handle(ctx context.Context, r slog.Record) error {
	h.rec.add(r.Message)
	return h.Handler.Handle(ctx, r)
}

func (h recordingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return recordingHandler{h.Handler.WithAttrs(as), h.rec}
}

func (h recordingHandler) WithGroup(name string) slog.Handler {
	return recordingHandler{h.Handler.WithGroup(name), h.rec}
}

// logRecorder holds log messages.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) add(msg string) {
	l.mu.Lock()
	l.msgs = append(l.msgs, msg)
	l.mu.Unlock()
}

// count returns how many messages were msg.
func (l *logRecorder) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// fixtureOptions adjust a fixture.
type fixtureOptions struct {
	// relay adjusts the relay's config.
	relay func(*config.Config)
	// worker adjusts the options of the worker f.startWorker starts.
	worker func(*bus.ServerOptions)
	// lateWorker leaves starting the worker to the test (f.startWorker).
	lateWorker bool
	// proxy puts f.proxy in front of the relay, as its public URL: every
	// connection goes through it.
	proxy bool
}

func newFixture(t *testing.T, mutate func(*config.Config)) *fixture {
	return newFixtureWith(t, fixtureOptions{relay: mutate})
}

func newFixtureWith(t *testing.T, opts fixtureOptions) *fixture {
	f := &fixture{t: t, worker: testutil.NewKey(t), trig: testutil.NewKey(t), channel: "ci",
		tools: newTestTools(), opts: opts}
	if opts.proxy {
		f.proxy = newRelayProxy(t)
	}
	f.r = testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, f.worker.PublicKey(), f.trig.PublicKey())
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1000, 1000
		if f.proxy != nil {
			c.PublicURL = "http://" + f.proxy.Addr()
		}
		if opts.relay != nil {
			opts.relay(c)
		}
	})
	if f.proxy != nil {
		f.proxy.setTarget(f.r.Config.Listen)
	}
	if !opts.lateWorker {
		f.startWorker()
	}
	f.member = dial(t, f.r.URL, f.r.Member)
	f.publish(f.r.Member, 9007, "", nostr.Tag{"h", f.channel}, nostr.Tag{"name", "CI"})
	f.publish(f.r.Member, 9000, "", nostr.Tag{"h", f.channel}, nostr.Tag{"p", f.trig.PublicKey(), "member"})
	return f
}

func dial(t *testing.T, url string, key *signer.Local) *bus.Conn {
	conn, err := bus.Dial(ctx(t), url, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.WaitAuth(ctx(t)); err != nil {
		t.Fatal(err)
	}
	return conn
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// startWorker serves the test tools and the built-in shell (in a temporary
// working directory) as f.worker, for calls from the trigger key only.
func (f *fixture) startWorker() {
	f.serveWorker(f.worker, "ci-worker", f.tools, f.opts.worker)
}

// serveWorker serves tt's tools and the built-in shell as key, announced
// under name, for calls from the trigger key only.
func (f *fixture) serveWorker(key *signer.Local, name string, tt *testTools, adjust func(*bus.ServerOptions)) {
	t := f.t
	tl, err := tools.New(tools.Options{Workdir: t.TempDir(), Confine: true, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	tt.register(tl.Server)
	conn := dial(t, f.r.URL, key)
	opts := &bus.ServerOptions{Name: name, Announce: true,
		Allow: []string{f.trig.PublicKey()}, Logger: testutil.Logger(t)}
	if adjust != nil {
		adjust(opts)
	}
	srv, err := bus.NewServer(key, tl.Server, opts)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go srv.Serve(wctx, conn)
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("worker not ready")
	}
}

// publish signs and publishes an event as key through the member's or a
// fresh connection.
func (f *fixture) publish(key *signer.Local, kind int, content string, tags ...nostr.Tag) nostr.Event {
	f.t.Helper()
	ev := testutil.Signed(f.t, key, kind, content, tags...)
	f.publishEvent(key, &ev)
	return ev
}

func (f *fixture) publishEvent(key *signer.Local, ev *nostr.Event) {
	f.t.Helper()
	conn := f.member
	if key != f.r.Member {
		conn = dial(f.t, f.r.URL, key)
	}
	if err := conn.Publish(ctx(f.t), ev); err != nil {
		f.t.Fatalf("publish kind %d: %v", ev.Kind, err)
	}
}

// runner is one life of a trigger runner.
type runner struct {
	cancel  context.CancelFunc
	done    chan error
	ready   <-chan struct{}
	stopped bool
}

// start runs the trigger config (TOML, with %[1]s = relay URL, %[2]s =
// state dir, %[3]s = worker npub, %[4]s = channel) until stop.
func (f *fixture) start(stateDir, toml string) *runner {
	f.t.Helper()
	return f.startHooked(stateDir, toml, "")
}

// startHooked starts a runner that dies the way a killed process would at
// the crash point named by killAt (see triggers.SetTestHook), if any.
func (f *fixture) startHooked(stateDir, toml, killAt string) *runner {
	f.t.Helper()
	var hook func(*runner, string)
	if killAt != "" {
		hook = func(r *runner, stage string) {
			if stage == killAt {
				r.cancel()
			}
		}
	}
	return f.startWith(stateDir, toml, hook)
}

// startWith starts a runner that calls hook, if set, at its crash points
// (see triggers.SetTestHook), and waits until it is ready.
func (f *fixture) startWith(stateDir, toml string, hook func(r *runner, stage string)) *runner {
	f.t.Helper()
	r := f.launch(stateDir, toml, hook)
	r.waitReady(f.t)
	return r
}

// launch starts a runner (see startWith) without waiting for it.
func (f *fixture) launch(stateDir, toml string, hook func(r *runner, stage string)) *runner {
	f.t.Helper()
	text := fmt.Sprintf(toml, f.r.URL, stateDir, f.worker.NPub(), f.channel)
	cfg, err := triggers.Parse([]byte(text))
	if err != nil {
		f.t.Fatalf("config: %v\n%s", err, text)
	}
	log := slog.New(recordingHandler{testutil.Logger(f.t).Handler(), &f.logs})
	rn, err := triggers.New(cfg, f.trig, &triggers.Options{Logger: log, RelayPubKey: f.r.Server.PublicKey()})
	if err != nil {
		f.t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	r := &runner{cancel: cancel, done: make(chan error, 1), ready: rn.Ready()}
	if hook != nil {
		triggers.SetTestHook(rn, func(stage string) { hook(r, stage) })
	}
	go func() { r.done <- rn.Run(c) }()
	f.t.Cleanup(func() { r.stop(f.t) })
	return r
}

// waitReady waits until the runner has subscribed.
func (r *runner) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-r.ready:
	case err := <-r.done:
		r.stopped = true
		t.Fatalf("runner stopped: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("runner not ready")
	}
}

// stop ends the runner the way a kill would, as far as the relay and the
// worker can tell: no more messages, calls under way left running.
func (r *runner) stop(t *testing.T) {
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("runner: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("runner did not stop")
	}
}
