package bench

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"toolbus/internal/testutil"
)

// tinyDirect are sizes small enough for tests: every path still runs.
var tinyDirect = directSizes{rounds: 1, shellN: 3, readN: 2, mcpN: 5, gitRounds: 1, commits: 30}

func TestDirectPlan(t *testing.T) {
	bc := testBusCrew(t)
	for suite, want := range map[string]int{"": 3, SuiteRelay: 0, SuiteBus: 0, SuiteTools: 1, SuiteMCP: 1, SuiteGit: 1, SuiteAll: 3} {
		rep := &Report{}
		if got := len(directPlan(suite, true, bc, rep)); got != want {
			t.Errorf("suite %q: %d direct workloads, want %d", suite, got, want)
		}
		if want > 0 && len(rep.Notes) == 0 {
			t.Errorf("suite %q: no notes", suite)
		}
	}
	// The direct suites run nothing on bare khatru.
	for _, suite := range []string{SuiteTools, SuiteMCP, SuiteGit} {
		ws, err := suitePlan(suite, testCrew(t), bc, sizesFor(true), &Report{})
		if err != nil || len(ws) != 0 {
			t.Errorf("suite %q: %d relay workloads (%v), want none", suite, len(ws), err)
		}
	}
}

// TestTreeCPU counts a child's CPU as the benchmark's own.
func TestTreeCPU(t *testing.T) {
	before, err := treeCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		after, err := treeCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after-before >= 5*clockTick {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a busy child's CPU time never showed in treeCPU")
}

// runTiny runs w once on a toolbus relay from the real binary and returns
// its rows by name; any failure of the run fails the test.
func runTiny(t *testing.T, w directWorkload, bc *busCrew) map[string]Row {
	t.Helper()
	if testing.Short() {
		t.Skip("starts relays and workers")
	}
	opts := Options{Exe: testutil.Binary(t, "toolbus")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep := &Report{}
	rows, err := runDirect(ctx, opts, toolbusSubject(bc.members()), w, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) > 0 {
		t.Fatalf("failures: %q", rep.Failures)
	}
	t.Logf("rows: %+v", rows)
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return byName
}

// wantMeasured checks that every named row has both columns measured.
func wantMeasured(t *testing.T, rows map[string]Row, names ...string) {
	t.Helper()
	if len(rows) != len(names) {
		t.Errorf("%d rows, want %d: %+v", len(rows), len(names), rows)
	}
	for _, n := range names {
		r, ok := rows[n]
		if !ok || r.Toolbus <= 0 || r.Baseline <= 0 {
			t.Errorf("row %s = %+v, want both columns measured", n, r)
		}
	}
}

func TestToolsWorkload(t *testing.T) {
	bc := testBusCrew(t)
	rows := runTiny(t, toolsWorkload(bc, tinyDirect), bc)
	wantMeasured(t, rows, "tools_shell_p50", "tools_read_10mb_p50", "worker_idle_rss_mb")
}

func TestMCPWorkload(t *testing.T) {
	bc := testBusCrew(t)
	rows := runTiny(t, mcpWorkload(bc, tinyDirect), bc)
	wantMeasured(t, rows, "mcp_p50", "mcp_p99", "mcp_added_p50", "mcp_added_plaintext_p50")
}

func TestGitWorkload(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bc := testBusCrew(t)
	rows := runTiny(t, gitWorkload(bc, tinyDirect), bc)
	wantMeasured(t, rows, "git_clone", "git_push")
}
