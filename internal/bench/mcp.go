package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The mcp suite measures what the MCP adapter costs an agent: a tools/call
// sent to `toolbus mcp` on stdio, forwarded over the relay to a worker
// process and back, against the same call sent to `toolbus tools --stdio`.
// The tool is read_file of a small file, the cheapest real tool, so that
// the adapter's cost is not hidden in the tool's own.

const (
	smallFile  = "small.txt"
	smallLines = 20
)

// smallArgs read the whole small file.
var smallArgs = map[string]any{"path": smallFile}

// writeSmallText writes the small file in dir.
func writeSmallText(dir string) error {
	var b strings.Builder
	for n := 1; n <= smallLines; n++ {
		fmt.Fprintf(&b, "small line %d\n", n)
	}
	return os.WriteFile(filepath.Join(dir, smallFile), []byte(b.String()), 0o644)
}

// checkSmall accepts the whole small file.
func checkSmall(res *mcp.CallToolResult) error {
	text, err := okText(res)
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("%d:small line %d\n", smallLines, smallLines); !strings.Contains(text, want) {
		return fmt.Errorf("read_file returned the wrong text: %.200s", text)
	}
	return nil
}

// adapterTool is the name the adapter exposes the worker's read_file under.
const adapterTool = benchWorkerName + "__read_file"

func mcpWorkload(bc *busCrew, dz directSizes) directWorkload {
	var dir string // the worker's and the stdio server's workdir
	return directWorkload{
		name: "mcp",
		metrics: []metric{
			{name: "mcp_p50", unit: "ms", better: lower, sample: "mcp", floor: "mcp_direct", stat: pct(50)},
			{name: "mcp_p99", unit: "ms", better: lower, sample: "mcp", floor: "mcp_direct", stat: pct(99)},
		},
		derived: func(s map[string][]float64) []Row {
			return []Row{
				addedRow("mcp_added_p50", "mcp", "mcp_direct", pct(50), s),
				addedRow("mcp_added_plaintext_p50", "mcp_plaintext", "mcp_direct", pct(50), s),
			}
		},
		rounds: dz.rounds,
		prepare: func(string) (err error) {
			if dir, err = os.MkdirTemp("", "toolbus-bench-mcp-"); err != nil {
				return err
			}
			return writeSmallText(dir)
		},
		cleanup: func() { os.RemoveAll(dir) },
		measure: func(ctx context.Context, exe string, r live) (outcome, error) {
			return measureMCP(ctx, exe, r.url, dir, bc, dz)
		},
	}
}

// mcpSides are the processes of one mcp round.
type mcpSides struct {
	worker    *child
	adapter   *stdioServer // as users run it: gift-wrapped calls
	plaintext *stdioServer // with --plaintext
	direct    *stdioServer
}

func (s *mcpSides) close() {
	for _, a := range []*stdioServer{s.adapter, s.plaintext} {
		if a != nil {
			a.close()
		}
	}
	if s.worker != nil {
		s.worker.stop()
	}
	if s.direct != nil {
		s.direct.close()
	}
}

// startMCPSides starts the worker, the two adapters (as the crew's second
// and third callers, exposing that one worker) and the stdio server, and
// waits until the adapters list the worker's tools.
func startMCPSides(ctx context.Context, exe, url, dir, keyDir string, bc *busCrew) (s *mcpSides, err error) {
	s = &mcpSides{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.worker, err = startWorker(ctx, exe, url, dir, keyDir, bc); err != nil {
		return nil, err
	}
	if s.adapter, err = startAdapter(ctx, exe, url, keyDir, "adapter", bc, 1); err != nil {
		return nil, err
	}
	if s.plaintext, err = startAdapter(ctx, exe, url, keyDir, "adapter-plaintext", bc, 2, "--plaintext"); err != nil {
		return nil, err
	}
	if s.direct, err = connectStdio(ctx, exe, "tools", "--stdio", "--confine", "--workdir", dir); err != nil {
		return nil, err
	}
	return s, nil
}

// startAdapter runs `toolbus mcp` on stdio as caller i of the crew,
// exposing the crew's worker, and waits until it lists the worker's tools.
func startAdapter(ctx context.Context, exe, url, keyDir, name string, bc *busCrew, i int, extra ...string) (*stdioServer, error) {
	keyFile, err := writeKey(keyDir, name, bc.callers[i])
	if err != nil {
		return nil, err
	}
	args := append([]string{"mcp", "--relay", url, "--key-file", keyFile, "--workers", bc.worker.PublicKey()}, extra...)
	a, err := connectStdio(ctx, exe, args...)
	if err != nil {
		return nil, err
	}
	if err := awaitTool(ctx, a, adapterTool); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// awaitTool polls tools/list until the server lists name: the adapter
// learns the worker's tools from its announcement, after it started.
func awaitTool(ctx context.Context, s *stdioServer, name string) error {
	deadline := time.Now().Add(readyTimeout)
	var names []string
	for {
		res, err := s.session.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("adapter tools/list: %w\n%s", err, s.logs)
		}
		names = names[:0]
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		if slices.Contains(names, name) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("adapter does not list %s after %s (it lists %v)\n%s", name, readyTimeout, names, s.logs)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func measureMCP(ctx context.Context, exe, url, dir string, bc *busCrew, dz directSizes) (outcome, error) {
	keyDir, err := os.MkdirTemp("", "toolbus-bench-keys-")
	if err != nil {
		return outcome{}, err
	}
	defer os.RemoveAll(keyDir)
	s, err := startMCPSides(ctx, exe, url, dir, keyDir, bc)
	if err != nil {
		return outcome{}, err
	}
	defer s.close()
	o := outcome{samples: map[string][]float64{}}
	paths := []timedPath{
		{kind: "mcp", call: checked(s.adapter.call, adapterTool, smallArgs, checkSmall)},
		{kind: "mcp_plaintext", call: checked(s.plaintext.call, adapterTool, smallArgs, checkSmall)},
		{kind: "mcp_direct", call: checked(s.direct.call, "read_file", smallArgs, checkSmall)},
	}
	if err := warmPaths(ctx, paths); err != nil {
		return outcome{}, err
	}
	interleave(ctx, &o, "mcp", dz.mcpN, paths)
	return o, ctx.Err()
}

// mcpNotes qualify the mcp suite's numbers.
func mcpNotes(dz directSizes) []string {
	return []string{
		"mcp: toolbus = a go-sdk MCP client → `toolbus mcp` (stdio, gift-wrapped calls, the default; --workers naming the one worker) → toolbus relay → `toolbus worker` process (per-caller quota off), calling " + adapterTool + "; the khatru column is the direct path here: the same client on `toolbus tools --stdio --confine` calling read_file over the same directory",
		fmt.Sprintf("mcp: the tool is read_file of a %d-line file; mcp_added_p50 = adapter p50 − direct p50 (its baseline column is the direct p50, so its ratio is the fraction added)", smallLines),
		"mcp: mcp_added_plaintext_p50 is informational (no target): the same through a second adapter run with --plaintext (kind 25910 in clear), to tell the gift wrap's share of the added time",
		fmt.Sprintf("mcp: %d round(s), each on a fresh relay and fresh processes with %d warm-up calls per path; %d calls per path per round, the three paths taking turns call by call", dz.rounds, directWarmup, dz.mcpN),
	}
}
