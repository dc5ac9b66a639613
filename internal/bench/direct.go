package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"toolbus/signer"
)

// directWorkload compares a path through toolbus with the direct path that
// does the same without it (a tool over stdio, git over file://). Unlike a
// workload it is not run on both relays: it runs on the toolbus relay
// alone, a fresh one per round, and its measure fills both columns, each
// metric's sample being the toolbus path's kind and its floor the direct
// path's. The two paths are measured inside one round, interleaved, so that
// the machine's drift falls on both.
type directWorkload struct {
	name    string
	metrics []metric
	// derived, when set, adds rows computed from several sample kinds.
	derived func(samples map[string][]float64) []Row
	rounds  int
	// prepare runs once before the first round, cleanup after the last.
	prepare func(exe string) error
	cleanup func()
	// measure runs one round against the relay r, starting whatever else
	// it needs from exe.
	measure func(ctx context.Context, exe string, r live) (outcome, error)
}

// directSizes are how much the direct suites do.
type directSizes struct {
	rounds    int           // tools and mcp: fresh relay and processes per round
	shellN    int           // shell calls per path per round
	readN     int           // read_file calls per path per round
	mcpN      int           // calls per path per round
	settle    time.Duration // idle before reading a process's RSS
	gitRounds int
	commits   int
}

func directSizesFor(quick bool) directSizes {
	if quick {
		return directSizes{rounds: 1, shellN: 60, readN: 15, mcpN: 400, settle: 300 * time.Millisecond,
			gitRounds: 3, commits: 2_000}
	}
	return directSizes{rounds: 3, shellN: 150, readN: 30, mcpN: 1000, settle: time.Second,
		gitRounds: 5, commits: 10_000}
}

// directWarmup calls per path open every round, unmeasured.
const directWarmup = 10

// directPlan lists the direct workloads of suite (already validated by
// suitePlan) and adds their notes to rep.
func directPlan(suite string, quick bool, bc *busCrew, rep *Report) []directWorkload {
	dz := directSizesFor(quick)
	suite = orAll(suite)
	all := suite == SuiteAll
	var ds []directWorkload
	if all || suite == SuiteTools {
		ds = append(ds, toolsWorkload(bc, dz))
		rep.Notes = append(rep.Notes, toolsNotes(dz)...)
	}
	if all || suite == SuiteMCP {
		ds = append(ds, mcpWorkload(bc, dz))
		rep.Notes = append(rep.Notes, mcpNotes(dz)...)
	}
	if all || suite == SuiteGit {
		ds = append(ds, gitWorkload(bc, dz))
		rep.Notes = append(rep.Notes, gitNotes(dz)...)
	}
	return ds
}

// runDirect runs w's rounds on fresh relays of s and returns its rows.
// Notes and failures go to rep.
func runDirect(ctx context.Context, opts Options, s subject, w directWorkload, rep *Report) ([]Row, error) {
	if w.prepare != nil {
		if err := w.prepare(opts.Exe); err != nil {
			return nil, fmt.Errorf("%s: prepare: %w", w.name, err)
		}
	}
	if w.cleanup != nil {
		defer w.cleanup()
	}
	got := map[string][]float64{}
	for round := range w.rounds {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "bench: %s through toolbus and direct (round %d/%d)\n", w.name, round+1, w.rounds)
		}
		o, err := directRound(ctx, opts.Exe, s, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		for k, xs := range o.samples {
			got[k] = append(got[k], xs...)
		}
		rep.Notes = append(rep.Notes, o.notes...)
		rep.Failures = append(rep.Failures, o.failures...)
	}
	var rows []Row
	for _, m := range w.metrics {
		rows = append(rows, newRow(m, m.stat(got[m.sample]), m.stat(got[m.baselineSample()])))
	}
	if w.derived != nil {
		rows = append(rows, w.derived(got)...)
	}
	return rows, nil
}

// directRound is one round of w on a fresh relay of s.
func directRound(ctx context.Context, exe string, s subject, w directWorkload) (outcome, error) {
	return measureOn(ctx, exe, s, w.name, func(r live) (outcome, error) { return w.measure(ctx, exe, r) })
}

// ms is a duration in milliseconds, the unit of the latency samples.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// addedRow is a row whose toolbus column is what the toolbus path adds to
// the direct one at stat (toolbus − direct) and whose baseline column is
// the direct path's, so that the ratio is the added fraction.
func addedRow(name, sample, direct string, stat func([]float64) float64, s map[string][]float64) Row {
	d := stat(s[direct])
	return newRow(metric{name: name, unit: "ms", better: lower}, stat(s[sample])-d, d)
}

// child is a toolbus process a direct workload runs beside the relay (a
// worker, say), with its output kept to explain a failure.
type child struct {
	cmd    *exec.Cmd
	logs   *tail
	exited chan struct{}
	err    error // how the process ended; read after exited is closed
}

// startChild runs exe with args, its output going to a kept tail.
func startChild(exe string, args ...string) (*child, error) {
	cmd := exec.Command(exe, args...)
	c := &child{cmd: cmd, logs: &tail{max: 16 << 10}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.logs, c.logs
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { c.err = cmd.Wait(); close(c.exited) }()
	return c, nil
}

// waitLog waits until the process has logged a line containing s.
func (c *child) waitLog(ctx context.Context, s string) error {
	deadline := time.Now().Add(readyTimeout)
	for !strings.Contains(c.logs.String(), s) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %q after %s:\n%s", s, readyTimeout, c.logs)
		}
		select {
		case <-c.exited:
			return fmt.Errorf("exited (%v) before %q:\n%s", c.err, s, c.logs)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// stop sends SIGTERM and waits, killing the process if it does not end.
func (c *child) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
		c.cmd.Process.Kill()
		<-c.exited
	}
}

// rssMB reads the process's resident memory in MB.
func (c *child) rssMB() (float64, error) { return pidRSS(c.cmd.Process.Pid) }

func pidRSS(pid int) (float64, error) {
	return readRSS(fmt.Sprintf("/proc/%d/status", pid))
}

// writeKey writes key to a 0600 key file in dir, for a child's --key-file.
func writeKey(dir, name string, key *signer.Local) (string, error) {
	path := filepath.Join(dir, name+".key")
	return path, signer.WriteKeyFile(path, key)
}

// workerArgs run `toolbus worker` as users do, as the crew's worker named
// "bench", serving dir to the crew's callers, with the per-caller quota
// off: the quota would otherwise throttle the measurement after 20 calls.
func workerArgs(url, keyFile, dir string, bc *busCrew) []string {
	allow := make([]string, len(bc.callers))
	for i, k := range bc.callers {
		allow[i] = k.PublicKey()
	}
	return []string{"worker", "--relay", url, "--key-file", keyFile, "--workdir", dir,
		"--name", benchWorkerName, "--allow", strings.Join(allow, ","), "--quota", "0"}
}

// benchWorkerName is the worker's announced name, so the MCP adapter
// exposes its tools as bench__<tool>.
const benchWorkerName = "bench"

// startWorker starts a worker serving workdir, its key file in keyDir, and
// waits until it is subscribed and announced (it logs "worker ready").
func startWorker(ctx context.Context, exe, url, workdir, keyDir string, bc *busCrew) (*child, error) {
	keyFile, err := writeKey(keyDir, "worker", bc.worker)
	if err != nil {
		return nil, err
	}
	w, err := startChild(exe, workerArgs(url, keyFile, workdir, bc)...)
	if err != nil {
		return nil, err
	}
	if err := w.waitLog(ctx, "worker ready"); err != nil {
		w.stop()
		return nil, fmt.Errorf("worker: %w", err)
	}
	return w, nil
}
