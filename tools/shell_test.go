package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/tools/fallback"
)

// shellEnvForTest builds an Env the way the server would, in temporary
// directories, with rg and tree links in BinDir.
func shellEnvForTest(t *testing.T) *Env {
	t.Helper()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOSTR_PRIVATE_KEY=") {
			env = append(env, kv)
		}
	}
	bin := filepath.Join(t.TempDir(), "bin")
	// The links only need to exist for the description; no test runs them.
	if err := fallback.Install(bin, "/bin/true"); err != nil {
		t.Fatal(err)
	}
	return &Env{Workdir: wd, Confine: true, Root: root, SessionDir: t.TempDir(),
		Shell: "/bin/sh", ShellEnv: env, BinDir: bin}
}

// connectShell serves the shell tool of e over in-memory transports and
// returns a client session, as an agent would see the tool.
func connectShell(t *testing.T, e *Env) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	registerShell(s, e)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// callShell calls the tool and decodes its structured result.
func callShell(t *testing.T, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, ShellOut) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shell", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var out ShellOut
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
	}
	return res, out
}

// shellResultText is the text content of a result.
func shellResultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wantRefused checks that a call was refused with the given error code.
func wantRefused(t *testing.T, res *mcp.CallToolResult, code string) {
	t.Helper()
	if !res.IsError || !strings.HasPrefix(shellResultText(res), code+":") {
		t.Fatalf("want a %s refusal, got isError=%v %q", code, res.IsError, shellResultText(res))
	}
}

func TestShellExitCodeAndStreams(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	res, out := callShell(t, cs, map[string]any{"command": "echo hi; echo oops >&2; exit 3"})
	if res.IsError || out.ExitCode != 3 || out.Stdout != "hi\n" || out.Stderr != "oops\n" {
		t.Fatalf("got %+v", out)
	}
	if out.StdoutTruncated || out.StdoutArtifact != "" || out.TimedOut {
		t.Fatalf("short output must be whole and unsaved: %+v", out)
	}
	text := shellResultText(res)
	for _, want := range []string{"exit_code: 3", "--- stdout ---\nhi\n", "--- stderr ---\noops\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	_, out = callShell(t, cs, map[string]any{"command": "kill -9 $$"})
	if out.ExitCode != 128+9 {
		t.Errorf("killed by SIGKILL: exit_code %d, want 137", out.ExitCode)
	}
}

func TestShellStdinIsDevNull(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	start := time.Now()
	_, out := callShell(t, cs, map[string]any{"command": "cat; read x; echo done $?", "timeout": 5000})
	if out.TimedOut || out.Stdout != "done 1\n" || time.Since(start) > 4*time.Second {
		t.Fatalf("cat must see EOF at once: %+v", out)
	}
}

func TestShellEnvironment(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	_, out := callShell(t, cs, map[string]any{"command": `echo "$PATH"; echo "$TOOLBUS_BIN_DIR"; pwd`})
	lines := strings.Split(out.Stdout, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], e.BinDir+":") || lines[1] != e.BinDir || lines[2] != e.Workdir {
		t.Fatalf("PATH must start with BinDir, cwd must be Workdir: %q", out.Stdout)
	}
}

func TestShellWorkdir(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	if err := os.Mkdir(filepath.Join(e.Workdir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, out := callShell(t, cs, map[string]any{"command": "pwd", "workdir": "sub"})
	if out.Stdout != filepath.Join(e.Workdir, "sub")+"\n" {
		t.Fatalf("workdir sub: pwd %q", out.Stdout)
	}
	_, out = callShell(t, cs, map[string]any{"command": "pwd"})
	if out.Stdout != e.Workdir+"\n" {
		t.Fatalf("each call starts afresh in Workdir: pwd %q", out.Stdout)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(e.Workdir, "escape")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.Workdir, "file"), nil, 0o644)
	for dir, code := range map[string]string{"../": codeUnauthorized, outside: codeUnauthorized,
		"escape": codeUnauthorized, "sub/../..": codeUnauthorized, "missing": codeNotFound, "file": codeInvalidParams} {
		res, _ := callShell(t, cs, map[string]any{"command": "pwd", "workdir": dir})
		wantRefused(t, res, code)
	}

	e.Confine = false
	cs = connectShell(t, e)
	_, out = callShell(t, cs, map[string]any{"command": "pwd", "workdir": "escape"})
	if real, _ := filepath.EvalSymlinks(outside); out.Stdout != real+"\n" {
		t.Fatalf("unconfined, workdir may leave Workdir: pwd %q", out.Stdout)
	}
}

func TestShellCommandLimits(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	for _, n := range []int{argCommandBytes, argCommandBytes + 1, maxCommandBytes} {
		cmd := "echo ok #"
		cmd += strings.Repeat("x", n-len(cmd))
		res, out := callShell(t, cs, map[string]any{"command": cmd})
		if res.IsError || out.Stdout != "ok\n" || out.ExitCode != 0 {
			t.Fatalf("%d-byte command: %q %+v", n, shellResultText(res), out)
		}
	}
	res, _ := callShell(t, cs, map[string]any{"command": "echo ok #" + strings.Repeat("x", maxCommandBytes-8)})
	wantRefused(t, res, codeInvalidParams)
	if !strings.Contains(shellResultText(res), "1000001 bytes") {
		t.Errorf("refusal should give the size: %q", shellResultText(res))
	}
	if _, out := callShell(t, cs, map[string]any{"command": "-x"}); out.ExitCode != 127 {
		t.Errorf("a command starting with - is a command, not a shell option: %+v", out)
	}
	for _, cmd := range []string{"", "  \n"} {
		res, _ = callShell(t, cs, map[string]any{"command": cmd})
		wantRefused(t, res, codeInvalidParams)
	}
}

func TestShellTimeoutArgument(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	res, out := callShell(t, cs, map[string]any{"command": "true", "timeout": maxTimeoutMs})
	if res.IsError || len(out.Notes) != 0 {
		t.Fatalf("the maximum is accepted as is: %+v", out)
	}
	res, out = callShell(t, cs, map[string]any{"command": "true", "timeout": maxTimeoutMs + 1})
	if res.IsError || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "clamped to 600000 ms") {
		t.Fatalf("above the maximum is clamped with a note: %+v", out)
	}
	res, _ = callShell(t, cs, map[string]any{"command": "true", "timeout": -1})
	wantRefused(t, res, codeInvalidParams)
}

func TestShellDescriptionAndSchema(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatal(err, tools)
	}
	tool := tools.Tools[0]
	for _, want := range []string{"On PATH:", "rg and tree are always available", "Prefer `rg` over grep",
		"300000", "600000", "/dev/null", "not sandboxed"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, tool.Description)
		}
	}
	in, _ := json.Marshal(tool.InputSchema)
	out, _ := json.Marshal(tool.OutputSchema)
	for _, want := range []string{`"command"`, `"timeout"`, `"workdir"`, `"required":["command"]`} {
		if !strings.Contains(string(in), want) {
			t.Errorf("input schema lacks %s: %s", want, in)
		}
	}
	for _, want := range []string{"exit_code", "stdout", "stderr", "timed_out", "duration_ms", "stdout_truncated",
		"stderr_truncated", "stdout_artifact", "stderr_artifact", "notes"} {
		if !strings.Contains(string(out), `"`+want+`"`) {
			t.Errorf("output schema lacks %s: %s", want, out)
		}
	}
}
