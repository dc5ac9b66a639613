package triggers_test

import (
	"context"
	"fmt"
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
}

// testTools records what ran: echo calls in order, and a block tool that
// waits for the test to release it.
type testTools struct {
	mu      sync.Mutex
	echoed  []string
	blocked int
	started chan string
	release chan struct{}
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

type textIn struct {
	Text string `json:"text"`
}

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
}

func newFixture(t *testing.T, mutate func(*config.Config)) *fixture {
	f := &fixture{t: t, worker: testutil.NewKey(t), trig: testutil.NewKey(t), channel: "ci",
		tools: &testTools{started: make(chan string, 8), release: make(chan struct{})}}
	f.r = testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, f.worker.PublicKey(), f.trig.PublicKey())
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1000, 1000
		if mutate != nil {
			mutate(c)
		}
	})
	f.startWorker()
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
	t := f.t
	tl, err := tools.New(tools.Options{Workdir: t.TempDir(), Confine: true, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	f.tools.register(tl.Server)
	conn := dial(t, f.r.URL, f.worker)
	srv, err := bus.NewServer(f.worker, tl.Server, &bus.ServerOptions{Name: "ci-worker", Announce: true,
		Allow: []string{f.trig.PublicKey()}, Logger: testutil.Logger(t)})
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
	text := fmt.Sprintf(toml, f.r.URL, stateDir, f.worker.NPub(), f.channel)
	cfg, err := triggers.Parse([]byte(text))
	if err != nil {
		f.t.Fatalf("config: %v\n%s", err, text)
	}
	rn, err := triggers.New(cfg, f.trig, &triggers.Options{Logger: testutil.Logger(f.t), RelayPubKey: f.r.Server.PublicKey()})
	if err != nil {
		f.t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	r := &runner{cancel: cancel, done: make(chan error, 1)}
	if killAt != "" {
		triggers.SetTestHook(rn, func(stage string) {
			if stage == killAt {
				cancel()
			}
		})
	}
	go func() { r.done <- rn.Run(c) }()
	f.t.Cleanup(func() { r.stop(f.t) })
	select {
	case <-rn.Ready():
	case err := <-r.done:
		f.t.Fatalf("runner stopped: %v", err)
	case <-time.After(15 * time.Second):
		f.t.Fatal("runner not ready")
	}
	return r
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
