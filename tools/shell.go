package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of a shell call's arguments.
const (
	defaultTimeoutMs = 120_000
	maxTimeoutMs     = 600_000
	maxCommandBytes  = 1_000_000
	// argCommandBytes is the longest command passed as `-c command`:
	// Linux refuses a single argv string over 128 KiB, so longer ones go
	// through a private script file instead.
	argCommandBytes = 100_000
)

// ShellIn is the shell tool's arguments.
type ShellIn struct {
	Command string `json:"command" jsonschema:"the shell command to run (at most 1000000 bytes)"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"timeout in milliseconds; default 120000, maximum 600000 (larger values are clamped)"`
	Workdir string `json:"workdir,omitempty" jsonschema:"directory to start in, relative to the working directory (default: the working directory)"`
}

// ShellOut is the shell tool's structured result.
type ShellOut struct {
	ExitCode        int      `json:"exit_code" jsonschema:"exit status; 124 on timeout, 128+N when killed by signal N"`
	Stdout          string   `json:"stdout" jsonschema:"standard output, or its last 8 KB after a notice line when it was too long"`
	Stderr          string   `json:"stderr" jsonschema:"standard error, or its last 8 KB after a notice line when it was too long"`
	TimedOut        bool     `json:"timed_out" jsonschema:"the command ran out of time and was killed"`
	DurationMs      int64    `json:"duration_ms" jsonschema:"wall-clock time of the call"`
	StdoutTruncated bool     `json:"stdout_truncated" jsonschema:"stdout is only the tail of the output"`
	StderrTruncated bool     `json:"stderr_truncated" jsonschema:"stderr is only the tail of the output"`
	StdoutArtifact  string   `json:"stdout_artifact,omitempty" jsonschema:"file holding the full stdout (up to 10 MB) when it was truncated"`
	StderrArtifact  string   `json:"stderr_artifact,omitempty" jsonschema:"file holding the full stderr (up to 10 MB) when it was truncated"`
	Notes           []string `json:"notes,omitempty" jsonschema:"anything else worth knowing about the call"`
}

// shellTool is the shell tool of one server: its call counter and
// artifact store live as long as the server.
type shellTool struct {
	env       *Env
	childEnv  []string
	calls     atomic.Int64
	artifacts *artifacts
}

// registerShell adds the shell tool to s. The output schema is declared
// explicitly (from ShellOut) and the handler's Out is any, because with a
// typed Out the SDK would replace a refusal's {error: ...} structured
// content with a zero ShellOut claiming exit_code 0.
func registerShell(s *mcp.Server, e *Env) {
	t := &shellTool{env: e, childEnv: childEnv(e), artifacts: newArtifacts(e.SessionDir)}
	schema, err := jsonschema.For[ShellOut](nil)
	if err != nil {
		panic(fmt.Sprintf("shell output schema: %v", err)) // a bug in ShellOut's tags
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:         "shell",
		Description:  shellDescription(e, t.childEnv),
		OutputSchema: schema,
		Annotations:  &mcp.ToolAnnotations{Title: "Run a shell command", OpenWorldHint: ptr(true)},
	}, t.call)
}

// ptr returns a pointer to v, for the SDK's optional fields.
func ptr[T any](v T) *T { return &v }

// call runs one shell command. A refusal is an error result with a code;
// a command that ran is never an error, whatever its exit code.
func (t *shellTool) call(ctx context.Context, _ *mcp.CallToolRequest, in ShellIn) (*mcp.CallToolResult, any, error) {
	var out ShellOut
	timeout, note, err := shellTimeout(in.Timeout)
	if err == nil {
		err = checkCommand(in.Command)
	}
	if err != nil {
		return toolError(codeInvalidParams, err.Error()), nil, nil
	}
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	dir, res := t.workdir(in.Workdir)
	if res != nil {
		return res, nil, nil
	}
	id := t.calls.Add(1)
	if err := t.run(ctx, id, in.Command, dir, timeout, &out); err != nil {
		return toolError(codeInternal, err.Error()), nil, nil
	}
	t.log(id, &out)
	return textResult(shellText(&out)), out, nil
}

// shellTimeout applies the default and the ceiling to a timeout in ms.
func shellTimeout(ms int) (time.Duration, string, error) {
	switch {
	case ms < 0:
		return 0, "", fmt.Errorf("timeout must be a positive number of milliseconds, got %d", ms)
	case ms == 0:
		ms = defaultTimeoutMs
	case ms > maxTimeoutMs:
		note := fmt.Sprintf("timeout %d ms is above the maximum; clamped to %d ms", ms, maxTimeoutMs)
		return maxTimeoutMs * time.Millisecond, note, nil
	}
	return time.Duration(ms) * time.Millisecond, "", nil
}

// checkCommand refuses commands that cannot be run as asked.
func checkCommand(c string) error {
	switch {
	case strings.TrimSpace(c) == "":
		return fmt.Errorf("command is empty")
	case len(c) > maxCommandBytes:
		return fmt.Errorf("command is %d bytes; the limit is %d bytes (write a script file and run it instead)", len(c), maxCommandBytes)
	case strings.ContainsRune(c, 0):
		return fmt.Errorf("command contains a NUL byte")
	}
	return nil
}

// workdir resolves the per-call starting directory. Under Confine it must
// stay inside Workdir, symlinks included; that is all confinement means
// for the shell, whose commands can go anywhere once started.
func (t *shellTool) workdir(p string) (string, *mcp.CallToolResult) {
	e := t.env
	if p == "" {
		return e.Workdir, nil
	}
	_, abs, err := e.Resolve(p)
	if err != nil {
		return "", toolError(codeUnauthorized, "workdir: "+err.Error())
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", toolError(codeNotFound, "no such directory: "+p)
	} else if err != nil {
		return "", fileError(err, p)
	}
	if rel, err := filepath.Rel(e.Workdir, real); e.Confine && (err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
		return "", toolError(codeUnauthorized, fmt.Sprintf("workdir: %v: %s (through a symlink)", ErrOutsideWorkdir, p))
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return "", invalidf("workdir %s is not a directory", p)
	}
	return real, nil
}

// run executes the command and fills out.
func (t *shellTool) run(ctx context.Context, id int64, command, dir string, timeout time.Duration, out *ShellOut) error {
	cmd, cleanup, err := t.command(id, command)
	if err != nil {
		return err
	}
	defer cleanup()
	cmd.Dir, cmd.Env = dir, t.childEnv
	stdout := &capture{name: "stdout", path: t.artifacts.path(id, "stdout")}
	stderr := &capture{name: "stderr", path: t.artifacts.path(id, "stderr")}
	start := time.Now()
	res, err := runGroup(ctx, cmd, timeout, stdout, stderr)
	if err != nil {
		return fmt.Errorf("starting %s: %w", t.env.Shell, err)
	}
	out.DurationMs = time.Since(start).Milliseconds()
	out.Stdout, out.StdoutTruncated, out.StdoutArtifact = stdout.finish()
	out.Stderr, out.StderrTruncated, out.StderrArtifact = stderr.finish()
	out.ExitCode, out.TimedOut = exitCode(res), res.timedOut
	out.Notes = append(out.Notes, outcomeNotes(res, timeout)...)
	if out.StdoutArtifact != "" || out.StderrArtifact != "" {
		if err := t.artifacts.prune(id); err != nil {
			out.Notes = append(out.Notes, "pruning old artifacts failed: "+err.Error())
		}
	}
	return nil
}

// command builds the shell invocation: `shell -c -- command` (the --
// keeps a command starting with "-" from being read as options), or for a
// command too long for argv, `shell script` with the command in a private
// file that cleanup removes.
func (t *shellTool) command(id int64, command string) (*exec.Cmd, func(), error) {
	if len(command) <= argCommandBytes {
		return exec.Command(t.env.Shell, "-c", "--", command), func() {}, nil
	}
	dir := t.env.SessionDir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("command-%06d-*.sh", id))
	if err != nil {
		return nil, nil, fmt.Errorf("writing the command to a script file: %w", err)
	}
	_, werr := f.WriteString(command)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	cleanup := func() { _ = os.Remove(f.Name()) }
	if werr != nil {
		cleanup()
		return nil, nil, fmt.Errorf("writing the command to a script file: %w", werr)
	}
	return exec.Command(t.env.Shell, f.Name()), cleanup, nil
}

// log records the call without its command or output, which may hold
// anything.
func (t *shellTool) log(id int64, out *ShellOut) {
	if t.env.Log == nil {
		return
	}
	t.env.Log.Info("shell call", "call_id", id, "exit_code", out.ExitCode,
		"timed_out", out.TimedOut, "duration_ms", out.DurationMs,
		"stdout_truncated", out.StdoutTruncated, "stderr_truncated", out.StderrTruncated)
}
