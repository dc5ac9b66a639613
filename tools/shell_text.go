package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// timeoutExitCode is what timeout(1) returns, so scripts and models read
// a timeout the way they already know.
const timeoutExitCode = 124

// exitCode maps how the shell ended to one number, as shells do.
func exitCode(res runOutcome) int {
	switch {
	case res.timedOut:
		return timeoutExitCode
	case res.state == nil:
		return -1
	}
	if ws, ok := res.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return res.state.ExitCode()
}

// outcomeNotes explains an unusual end of a call.
func outcomeNotes(res runOutcome, timeout time.Duration) []string {
	var notes []string
	switch {
	case res.timedOut:
		n := fmt.Sprintf("timed out after %d ms: the process group was killed", timeout.Milliseconds())
		if timeout < time.Second {
			n += " (timeout is in milliseconds)"
		}
		notes = append(notes, n)
	case res.cancelled:
		notes = append(notes, "the call was cancelled: the process group was killed")
	case res.lingered:
		notes = append(notes, "background processes were still running when the shell exited; they were killed, since no process outlives its call")
	}
	if res.unreaped {
		notes = append(notes, "the shell had not died 2 s after SIGKILL; its exit status is unknown")
	}
	if res.unread {
		notes = append(notes, "a process outside the command's process group kept the output open; output after the shell exited was not read")
	}
	return notes
}

// shellText is the result as the model reads it.
func shellText(out *ShellOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit_code: %d (%d ms)", out.ExitCode, out.DurationMs)
	if out.TimedOut {
		b.WriteString(", timed out")
	}
	b.WriteString("\n")
	for _, s := range [][2]string{{"stdout", out.Stdout}, {"stderr", out.Stderr}} {
		if s[1] != "" {
			fmt.Fprintf(&b, "--- %s ---\n%s", s[0], s[1])
			if !strings.HasSuffix(s[1], "\n") {
				b.WriteString("\n")
			}
		}
	}
	if out.Stdout == "" && out.Stderr == "" {
		b.WriteString("(no output)\n")
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// shellDescription tells the model what it can rely on. Every claim is
// one the code enforces; the tools list is what the shell's PATH held at
// registration.
func shellDescription(e *Env, childEnv []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run a command in a fresh non-interactive %s, one per call: cd, variables and "+
		"background jobs do not carry over. stdin is /dev/null. ", filepath.Base(e.Shell))
	fmt.Fprintf(&b, "It starts in `workdir`, relative to %s (default: that directory)", e.Workdir)
	if e.Confine {
		b.WriteString("; workdir must stay inside it. This confinement covers the file tools and the " +
			"starting directory only: the command itself is not sandboxed")
	}
	fmt.Fprintf(&b, ".\n\ntimeout is in milliseconds: default %d, maximum %d. Builds, test suites and "+
		"pushes with hooks want at least 300000. On timeout the whole process group is killed and "+
		"exit_code is 124; processes left running when the shell exits are killed too.\n\n", defaultTimeoutMs, maxTimeoutMs)
	fmt.Fprintf(&b, "When stdout or stderr exceeds %d KB or %d lines, only its last %d KB is returned, "+
		"after a first line giving the path of a file with the full output (up to %d MB; files of the "+
		"last %d such calls are kept).", modelMaxBytes>>10, modelMaxLines, tailBytes>>10, captureMax>>20, keepArtifactCalls)
	tools := toolsOnPath(envPath(childEnv))
	if len(tools) > 0 {
		fmt.Fprintf(&b, "\n\nOn PATH: %s.", strings.Join(tools, ", "))
	}
	switch {
	case e.BinDir != "" && lookPath("rg", e.BinDir) && lookPath("tree", e.BinDir):
		b.WriteString(" rg and tree are always available (toolbus stands in when the system has none). " +
			"Prefer `rg` over grep and `rg --files` over find.")
	case lookPath("rg", envPath(childEnv)):
		b.WriteString(" Prefer `rg` over grep and `rg --files` over find.")
	}
	return b.String()
}
