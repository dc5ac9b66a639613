package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

// directRound is measureOn for a direct workload: the load note counts
// every process of the benchmark's tree as its own, since the round runs
// workers, adapters and git beside the relay.
func directRound(ctx context.Context, exe string, s subject, w directWorkload) (outcome, error) {
	p, err := s.start(ctx, exe)
	if err != nil {
		return outcome{}, err
	}
	load := watchTree()
	o, err := w.measure(ctx, exe, live{name: s.name, url: p.url, auth: s.auth, rssMB: p.rssMB})
	if n := load.note(); n != "" {
		o.notes = append(o.notes, w.name+": "+n)
	}
	if stopErr := p.stop(); err == nil {
		err = stopErr
	}
	if logged := noteworthy(p.logs.lines()); len(logged) > 0 {
		o.notes = append(o.notes, fmt.Sprintf("%s: relay logged %d lines, last: %s", w.name, len(logged), logged[len(logged)-1]))
	}
	return o, err
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

// treeLoad is watchLoad for rounds that run more than the relay: what is
// "ours" is this process and every process descended from it, each with
// the children it has reaped.
type treeLoad struct {
	start      time.Time
	busy, ours time.Duration
	ok         bool
}

func watchTree() *treeLoad {
	w := &treeLoad{start: time.Now()}
	w.busy, w.ours, w.ok = w.sample()
	return w
}

func (w *treeLoad) sample() (busy, ours time.Duration, ok bool) {
	busy, err := machineBusy()
	if err != nil {
		return 0, 0, false
	}
	ours, err = treeCPU(os.Getpid())
	return busy, ours, err == nil
}

// note reports the other processes' load since watchTree, as
// loadWatch.note does.
func (w *treeLoad) note() string {
	busy, ours, ok := w.sample()
	wall := time.Since(w.start)
	if !ok || !w.ok || wall <= 0 {
		return ""
	}
	cores := float64(busy-w.busy-(ours-w.ours)) / float64(wall)
	if cores < othersNoted {
		return ""
	}
	return fmt.Sprintf("other processes took %.1f of the machine's %d cores while measuring; expect noise", cores, runtime.NumCPU())
}

// treeCPU sums the CPU time (user and system, with reaped children's) of
// root and its live descendants, from /proc.
func treeCPU(root int) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	parent := map[int]int{}
	cpu := map[int]time.Duration{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, t, err := procStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		parent[pid], cpu[pid] = ppid, t
	}
	if _, ok := cpu[root]; !ok {
		return 0, errors.New("no /proc entry for the benchmark")
	}
	var total time.Duration
	for pid, t := range cpu {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				total += t
				break
			}
		}
	}
	return total, nil
}

// procStat returns a process's parent and its utime+stime+cutime+cstime.
func procStat(pid int) (ppid int, cpu time.Duration, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name: state is field 3, ppid 4, utime 14 to
	// cstime 17.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, 0, errors.New("unexpected /proc stat")
	}
	if ppid, err = strconv.Atoi(f[1]); err != nil {
		return 0, 0, err
	}
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		ticks += n
	}
	return ppid, time.Duration(ticks) * clockTick, nil
}
