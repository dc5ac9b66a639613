package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Bounds of the end of a shell call. Every wait is bounded, so a call
// returns within about timeout + 2*killGrace + 2*drainGrace (under a
// second past the timeout, or past the shell's exit), whatever its
// processes do; only a shell that even SIGKILL cannot end adds reapBound.
const (
	// killGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	killGrace = 200 * time.Millisecond
	// settleGrace lets a background job that is already exiting finish
	// before it is counted as left behind: it closes its pipes before it
	// becomes a zombie.
	settleGrace = 50 * time.Millisecond
	// drainGrace is how long the pipes may stay open after the shell has
	// gone: enough for a background job to flush, not enough to hang.
	drainGrace = 200 * time.Millisecond
	// reapBound caps the wait for a SIGKILLed shell to be reaped (a
	// process stuck in the kernel can outlive SIGKILL for a while).
	reapBound = 2 * time.Second
)

// runOutcome is how a command ended.
type runOutcome struct {
	state     *os.ProcessState // nil if the shell could not be reaped in time
	unreaped  bool             // the shell outlived SIGKILL by reapBound
	timedOut  bool
	cancelled bool
	lingered  bool // processes outlived the shell and were killed
	unread    bool // the pipes were still held open and had to be closed
}

// runGroup runs cmd in a process group of its own, with stdin from
// /dev/null and its output copied to stdout and stderr, and makes sure
// that nothing of it is left when it returns: on timeout or
// cancellation, and also after a normal exit, the whole group gets
// SIGTERM, then SIGKILL. The error is only for a shell that could not
// start; everything after that is described by the outcome.
func runGroup(ctx context.Context, cmd *exec.Cmd, timeout time.Duration, stdout, stderr io.Writer) (runOutcome, error) {
	var out runOutcome
	g, err := startGroup(cmd, stdout, stderr)
	if err != nil {
		return out, err
	}
	defer g.closePipes()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-g.exited:
	case <-timer.C:
		out.timedOut = true
	case <-ctx.Done():
		out.cancelled = true
	}
	if out.timedOut || out.cancelled {
		killGroup(g.pgid, 0)
		_ = cmd.Process.Kill() // in case the shell left its group
		out.unreaped = !waitFor(g.exited, reapBound)
	}
	g.finish(&out)
	return out, nil
}

// group is a started shell and the read ends of its pipes.
type group struct {
	cmd        *exec.Cmd
	pgid       int
	rOut, rErr *os.File
	drained    <-chan struct{} // both pipes are at EOF (or closed)
	exited     <-chan struct{} // the shell has exited (not yet reaped)
}

// startGroup starts cmd with fresh pipes for its output.
func startGroup(cmd *exec.Cmd, stdout, stderr io.Writer) (*group, error) {
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		rOut.Close()
		wOut.Close()
		return nil, err
	}
	// *os.File outputs are handed to the child as they are, so waiting
	// for the shell ends when it exits, not when the last holder of a
	// pipe (perhaps a daemonised grandchild) lets go of it.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, wOut, wErr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	wOut.Close()
	wErr.Close()
	g := &group{cmd: cmd, rOut: rOut, rErr: rErr}
	if err != nil {
		g.closePipes()
		return nil, err
	}
	g.pgid = cmd.Process.Pid
	g.drained = drain([2]io.Reader{rOut, rErr}, [2]io.Writer{stdout, stderr})
	exited := make(chan struct{})
	go func() { waitExit(cmd); close(exited) }()
	g.exited = exited
	return g, nil
}

// finish runs once the shell has exited: it lets the pipes drain, kills
// what is left of the group whether or not it holds the pipes (no
// process outlives its call), and reaps the shell. The shell is reaped
// last because, until then, its PID and so the group's ID cannot be
// reused: the signals cannot reach an unrelated group.
func (g *group) finish(out *runOutcome) {
	waitFor(g.drained, drainGrace)
	if !out.timedOut && !out.cancelled {
		out.lingered = killGroup(g.pgid, settleGrace)
	} else {
		killGroup(g.pgid, 0)
	}
	if !waitFor(g.drained, drainGrace) {
		// Something outside the group (it called setsid) still holds a
		// pipe; closing our ends unblocks the readers.
		out.unread = true
		g.closePipes()
		<-g.drained
	}
	if out.unreaped {
		go func() { <-g.exited; _ = g.cmd.Wait() }() // reap it whenever it dies
		return
	}
	_ = g.cmd.Wait()
	out.state = g.cmd.ProcessState
}

// closePipes closes the read ends; closing twice is harmless.
func (g *group) closePipes() {
	g.rOut.Close()
	g.rErr.Close()
}

// drain copies both pipes until EOF (or until they are closed under it)
// and closes the returned channel when both are done.
func drain(from [2]io.Reader, to [2]io.Writer) <-chan struct{} {
	var wg sync.WaitGroup
	for i := range from {
		wg.Go(func() {
			buf := make([]byte, 64<<10)
			_, _ = io.CopyBuffer(to[i], from[i], buf)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// waitFor waits for ch to close, at most d; it reports whether it did.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// killGroup ends process group pgid: once settle has passed, SIGTERM,
// then SIGKILL after killGrace unless every member is gone by then. It
// reports whether it had to send a signal.
func killGroup(pgid int, settle time.Duration) bool {
	if groupGone(pgid, settle) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if !groupGone(pgid, killGrace) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return true
}

// groupGone waits up to d for group pgid to have no live member.
func groupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
