package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spawnTwoSleeps starts two background sleeps and records their PIDs and the
// shell's in the file pids; %s is where to send the sleeps' output.
const spawnTwoSleeps = `sleep 100 %[1]s & echo $! > pids; sleep 100 %[1]s & echo $! >> pids; echo $$ >> pids; `

// readShellPids returns the PIDs a command wrote to Workdir/pids.
func readShellPids(t *testing.T, e *Env) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Workdir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// procAlive says whether pid is a live process; a zombie is dead, since an
// orphan's zombie stays until PID 1 reaps it, which some containers never do.
func procAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	state, _, ok := procStat(strconv.Itoa(pid))
	return !ok || (state != 'Z' && state != 'X')
}

// wantProcsGone fails unless every pid is gone; SIGKILL is delivered
// asynchronously, so it allows a generous second.
func wantProcsGone(t *testing.T, pids []int) {
	t.Helper()
	if len(pids) != 3 {
		t.Fatalf("want 3 pids, got %v", pids)
	}
	deadline := time.Now().Add(time.Second)
	for _, pid := range pids {
		for procAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if procAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL) // do not leak it past the test
			t.Errorf("process %d outlived its call", pid)
		}
	}
}

func TestShellTimeoutKillsGroup(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	start := time.Now()
	res, out := callShell(t, cs, map[string]any{"command": fmt.Sprintf(spawnTwoSleeps, "") + "echo started; sleep 100", "timeout": 1000})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 1 s timeout took %v", d)
	}
	if !out.TimedOut || out.ExitCode != 124 || out.Stdout != "started\n" {
		t.Fatalf("got %+v", out)
	}
	if !strings.Contains(shellResultText(res), "timed out") || len(out.Notes) == 0 {
		t.Errorf("the text and notes should say it timed out: %q %v", shellResultText(res), out.Notes)
	}
	wantProcsGone(t, readShellPids(t, e))
}

func TestShellTimeoutIgnoringSIGTERM(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	start := time.Now()
	_, out := callShell(t, cs, map[string]any{"command": "trap '' TERM; " + fmt.Sprintf(spawnTwoSleeps, "") + "sleep 100", "timeout": 500})
	if d := time.Since(start); d > 1500*time.Millisecond || !out.TimedOut {
		t.Fatalf("SIGKILL must follow an ignored SIGTERM: took %v, %+v", d, out)
	}
	wantProcsGone(t, readShellPids(t, e))
}

func TestShellBackgroundJobHoldingPipes(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	for _, redirect := range []string{"", ">/dev/null 2>&1"} {
		start := time.Now()
		_, out := callShell(t, cs, map[string]any{"command": fmt.Sprintf(spawnTwoSleeps, redirect) + "echo started"})
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("background jobs (%q) held the call for %v", redirect, d)
		}
		if out.TimedOut || out.ExitCode != 0 || out.Stdout != "started\n" {
			t.Fatalf("got %+v", out)
		}
		if len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "background processes") {
			t.Errorf("notes should say background processes were killed: %v", out.Notes)
		}
		wantProcsGone(t, readShellPids(t, e))
	}
}

func TestShellQuickBackgroundOutputIsKept(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	_, out := callShell(t, cs, map[string]any{"command": "(sleep 0.05; echo late) & echo early"})
	if out.Stdout != "early\nlate\n" || len(out.Notes) != 0 {
		t.Fatalf("a job finishing within the grace period is waited for: %+v", out)
	}
}

func TestShellEscapedProcessDoesNotHang(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid")
	}
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	start := time.Now()
	_, out := callShell(t, cs, map[string]any{"command": setsid + " sh -c 'echo $$ > pids; exec sleep 100' & sleep 0.2; echo started"})
	for _, pid := range readShellPids(t, e) {
		syscall.Kill(pid, syscall.SIGKILL) // outside the group: ours to clean up
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a process outside the group held the call for %v", d)
	}
	if out.Stdout != "started\n" || !strings.Contains(strings.Join(out.Notes, "\n"), "kept the output open") {
		t.Fatalf("got %+v", out)
	}
}

func TestShellCancelKillsGroup(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shell",
			Arguments: map[string]any{"command": fmt.Sprintf(spawnTwoSleeps, "") + "sleep 100"}})
		done <- err
	}()
	pidsFile := filepath.Join(e.Workdir, "pids")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(pidsFile); strings.Count(string(b), "\n") == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call should fail on the client")
	}
	// The server learns of the cancellation asynchronously.
	pids := readShellPids(t, e)
	deadline := time.Now().Add(2 * time.Second)
	for procAlive(pids[0]) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	wantProcsGone(t, pids)
	// The server is still usable afterwards.
	if _, out := callShell(t, cs, map[string]any{"command": "echo ok"}); out.Stdout != "ok\n" {
		t.Fatalf("after a cancellation: %+v", out)
	}
}

// TestShellTimeoutSendsSIGTERMFirst: on timeout the group gets SIGTERM
// and a grace period before SIGKILL, so a command can clean up. The
// TERM trap's marker file exists only if SIGTERM came first (a SIGKILL
// cannot be trapped).
func TestShellTimeoutSendsSIGTERMFirst(t *testing.T) {
	if killGrace != 200*time.Millisecond {
		t.Fatalf("killGrace = %v, want 200ms between SIGTERM and SIGKILL", killGrace)
	}
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	marker := filepath.Join(e.Workdir, "term.marker")
	cmd := fmt.Sprintf("trap 'echo term > %s; exit 0' TERM; echo started; sleep 30", marker)
	_, out := callShell(t, cs, map[string]any{"command": cmd, "timeout": 500})
	if !out.TimedOut || out.ExitCode != 124 || out.Stdout != "started\n" {
		t.Fatalf("got %+v", out)
	}
	b, err := os.ReadFile(marker)
	if err != nil || string(b) != "term\n" {
		t.Fatalf("the TERM trap did not run (was SIGKILL sent first?): %q, %v", b, err)
	}
}
