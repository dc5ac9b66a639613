package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

// The tools suite calls the built-in tools two ways: direct, from
// `toolbus tools --stdio` as a local agent would, and on the bus, from a
// `toolbus worker` process through the toolbus relay with bus.Client as
// `toolbus call` does (gift-wrapped, the default). Both serve the same
// directory, confined to it.

// The big file read_file reads: 10 MiB, the tool's limit, of 64-byte lines.
const (
	bigFile    = "big.txt"
	bigLineLen = 64
	bigLines   = 10 << 20 / bigLineLen
	// bigWindow lines, the file's last, are read: a bus reply holds at
	// most 64 KB (NIP-44), so the window, not the file, crosses the bus,
	// while the tool still scans all 10 MiB to count the lines.
	bigWindow = 400
)

// bigLine is line n (1-based) of the big file, without its newline.
func bigLine(n int) string {
	s := fmt.Sprintf("line %07d ", n)
	return s + strings.Repeat("x", bigLineLen-1-len(s))
}

// writeBigText writes the big file at path.
func writeBigText(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for n := 1; n <= bigLines; n++ {
		w.WriteString(bigLine(n))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readArgs are read_file's arguments for the big file's last window.
func readArgs() map[string]any {
	return map[string]any{"path": bigFile, "offset": bigLines - bigWindow + 1, "limit": bigWindow}
}

// checkRead accepts the big file's last window.
func checkRead(res *mcp.CallToolResult) error {
	text, err := okText(res)
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("%d:%s\n", bigLines, bigLine(bigLines)); !strings.Contains(text, want) {
		return fmt.Errorf("read_file returned the wrong window (%d bytes)", len(text))
	}
	return nil
}

// shellArgs run a command that does nothing.
var shellArgs = map[string]any{"command": "true"}

// checkShell accepts a successful run of `true`.
func checkShell(res *mcp.CallToolResult) error {
	text, err := okText(res)
	if err != nil {
		return err
	}
	if !strings.Contains(text, "exit_code: 0") {
		return fmt.Errorf("shell did not exit 0: %.200s", text)
	}
	return nil
}

// okText returns the text of a successful result.
func okText(res *mcp.CallToolResult) (string, error) {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %.300s", b.String())
	}
	return b.String(), nil
}

// toolCall calls one tool one way, checking the result.
type toolCall func(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error)

// checked is a call of tool with args whose result check accepts.
func checked(call toolCall, tool string, args map[string]any, check func(*mcp.CallToolResult) error) func(context.Context) error {
	return func(ctx context.Context) error {
		res, err := call(ctx, tool, args)
		if err != nil {
			return err
		}
		return check(res)
	}
}

// stdioServer is a toolbus MCP server on stdio (`toolbus tools --stdio`
// or `toolbus mcp`) with a go-sdk client session on it.
type stdioServer struct {
	session *mcp.ClientSession
	cmd     *exec.Cmd
	logs    *tail
}

// connectStdio starts exe with args and initialises an MCP session over
// its stdin and stdout.
func connectStdio(ctx context.Context, exe string, args ...string) (*stdioServer, error) {
	cmd := exec.Command(exe, args...)
	logs := &tail{max: 16 << 10}
	cmd.Stderr = logs
	dieWithParent(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "toolbus-bench", Version: "1"}, nil)
	cctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: stopTimeout}, nil)
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return nil, fmt.Errorf("%s: %w\n%s", args[0], err, logs)
	}
	return &stdioServer{session: cs, cmd: cmd, logs: logs}, nil
}

// call is the session's toolCall.
func (s *stdioServer) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	return s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

func (s *stdioServer) rssMB() (float64, error) { return pidRSS(s.cmd.Process.Pid) }

// close ends the session, which ends the process.
func (s *stdioServer) close() { s.session.Close() }

// busCaller is a bus.Client on its own connection, as `toolbus call` has.
type busCaller struct {
	conn   *bus.Conn
	client *bus.Client
	worker string
}

func dialCaller(ctx context.Context, url string, bc *busCrew, wrap bus.WrapMode) (*busCaller, error) {
	key := bc.callers[0]
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: key, Logger: quiet})
	if err != nil {
		return nil, err
	}
	c, err := bus.NewClient(ctx, conn, key, &bus.ClientOptions{Wrap: wrap, Logger: quiet})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &busCaller{conn: conn, client: c, worker: bc.worker.PublicKey()}, nil
}

func (b *busCaller) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	return b.client.CallTool(ctx, b.worker, tool, args)
}

func (b *busCaller) close() {
	b.client.Close()
	b.conn.Close()
}

// toolsWorkload measures shell and read_file calls and the processes'
// idle memory, on the bus and over stdio.
func toolsWorkload(bc *busCrew, dz directSizes) directWorkload {
	var dir string // the workdir both servers serve, with the big file
	return directWorkload{
		name: "tools",
		metrics: []metric{
			{name: "tools_shell_p50", unit: "ms", better: lower, sample: "shell", floor: "shell_direct", stat: pct(50)},
			{name: "tools_read_10mb_p50", unit: "ms", better: lower, sample: "read", floor: "read_direct", stat: pct(50)},
			{name: "worker_idle_rss_mb", unit: "MB", better: lower, sample: "rss", floor: "rss_direct", stat: pct(50)},
		},
		rounds: dz.rounds,
		prepare: func(string) (err error) {
			if dir, err = os.MkdirTemp("", "toolbus-bench-tools-"); err != nil {
				return err
			}
			return writeBigText(filepath.Join(dir, bigFile))
		},
		cleanup: func() { os.RemoveAll(dir) },
		measure: func(ctx context.Context, exe string, r live) (outcome, error) {
			return measureTools(ctx, exe, r.url, dir, bc, dz)
		},
	}
}

// toolsSides are the processes of one tools round.
type toolsSides struct {
	worker *child
	caller *busCaller
	direct *stdioServer
}

func (s *toolsSides) close() {
	if s.caller != nil {
		s.caller.close()
	}
	if s.worker != nil {
		s.worker.stop()
	}
	if s.direct != nil {
		s.direct.close()
	}
}

// startToolsSides starts the worker and the stdio server over dir and
// connects a bus caller.
func startToolsSides(ctx context.Context, exe, url, dir, keyDir string, bc *busCrew) (s *toolsSides, err error) {
	s = &toolsSides{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.worker, err = startWorker(ctx, exe, url, dir, keyDir, bc); err != nil {
		return nil, err
	}
	if s.direct, err = connectStdio(ctx, exe, "tools", "--stdio", "--confine", "--workdir", dir); err != nil {
		return nil, err
	}
	if s.caller, err = dialCaller(ctx, url, bc, bus.WrapGift); err != nil {
		return nil, fmt.Errorf("caller: %w", err)
	}
	return s, nil
}

func measureTools(ctx context.Context, exe, url, dir string, bc *busCrew, dz directSizes) (outcome, error) {
	keyDir, err := os.MkdirTemp("", "toolbus-bench-keys-")
	if err != nil {
		return outcome{}, err
	}
	defer os.RemoveAll(keyDir)
	s, err := startToolsSides(ctx, exe, url, dir, keyDir, bc)
	if err != nil {
		return outcome{}, err
	}
	defer s.close()
	o := outcome{samples: map[string][]float64{}}
	// Idle memory first: the worker has connected and announced, the
	// stdio server has an initialised session, neither has served a call.
	time.Sleep(dz.settle)
	rss, err := s.worker.rssMB()
	direct, err2 := s.direct.rssMB()
	if err := errors.Join(err, err2); err != nil {
		return outcome{}, fmt.Errorf("rss: %w", err)
	}
	o.samples["rss"], o.samples["rss_direct"] = []float64{rss}, []float64{direct}
	shell := []timedPath{
		{kind: "shell", call: checked(s.caller.call, "shell", shellArgs, checkShell)},
		{kind: "shell_direct", call: checked(s.direct.call, "shell", shellArgs, checkShell)},
	}
	read := []timedPath{
		{kind: "read", call: checked(s.caller.call, "read_file", readArgs(), checkRead)},
		{kind: "read_direct", call: checked(s.direct.call, "read_file", readArgs(), checkRead)},
	}
	for _, paths := range [][]timedPath{shell, read} {
		if err := warmPaths(ctx, paths); err != nil {
			return outcome{}, err
		}
	}
	interleave(ctx, &o, "tools", dz.shellN, shell)
	interleave(ctx, &o, "tools", dz.readN, read)
	return o, ctx.Err()
}

// timedPath is one way of making a call, whose milliseconds are filed
// under kind.
type timedPath struct {
	kind string
	call func(context.Context) error
}

// warmPaths makes directWarmup unmeasured calls on each path.
func warmPaths(ctx context.Context, paths []timedPath) error {
	for _, p := range paths {
		for range directWarmup {
			if err := timedCall(ctx, p); err != nil {
				return fmt.Errorf("%s warm-up: %w", p.kind, err)
			}
		}
	}
	return nil
}

func timedCall(ctx context.Context, p timedPath) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return p.call(ctx)
}

// interleave makes n sequential calls on every path, taking the paths in
// turn and alternating which goes first, so that drift of the machine
// falls on all of them. Each successful call's milliseconds go to its
// kind; failures are failures of the run, and a path failing
// maxRTTFailures times ends the series.
func interleave(ctx context.Context, o *outcome, name string, n int, paths []timedPath) {
	fails := make([]tally, len(paths))
	order := make([]int, len(paths))
	for i := 0; i < n && ctx.Err() == nil; i++ {
		for j := range order {
			order[j] = j
			if i%2 == 1 {
				order[j] = len(paths) - 1 - j
			}
		}
		for _, j := range order {
			start := time.Now()
			if err := timedCall(ctx, paths[j]); err != nil {
				fails[j].add(err)
				continue
			}
			o.samples[paths[j].kind] = append(o.samples[paths[j].kind], ms(time.Since(start)))
		}
		if maxFails(fails) >= maxRTTFailures {
			break
		}
	}
	for j, f := range fails {
		if f.n > 0 {
			o.failures = append(o.failures, f.describe(name+" "+paths[j].kind))
		}
	}
}

func maxFails(fails []tally) int {
	m := 0
	for _, f := range fails {
		m = max(m, f.n)
	}
	return m
}

// toolsNotes qualify the tools suite's numbers.
func toolsNotes(dz directSizes) []string {
	return []string{
		"tools: toolbus = bus.Client (gift-wrapped, as `toolbus call` sends) in the bench process → toolbus relay → `toolbus worker` process (per-caller quota off); the khatru column is the direct path here: a go-sdk MCP client on `toolbus tools --stdio --confine`, the same tools over the same directory",
		fmt.Sprintf("tools: shell runs `true`; read_file reads the last %d lines (%d KB) of a 10 MiB file of %d-byte lines, so the tool scans the whole file while the reply fits a bus message (at most 64 KB)", bigWindow, bigWindow*(bigLineLen+7)/1000, bigLineLen),
		fmt.Sprintf("tools: worker_idle_rss_mb = the worker process's RSS %s after it subscribed and announced, before any call; baseline = the `toolbus tools --stdio` process's RSS with an initialised session, equally idle", dz.settle),
		fmt.Sprintf("tools: %d round(s), each on a fresh relay and fresh processes with %d warm-up calls per path; %d shell and %d read_file calls per path per round, the two paths taking turns call by call", dz.rounds, directWarmup, dz.shellN, dz.readN),
	}
}
