package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"toolbus/internal/testutil"
)

// TestUpServesToolsOnItsDirectory is the README's first command end to end:
// `toolbus up` on a fresh machine creates the user's key (0600), starts the
// relay and a worker on the current directory, and prints a `toolbus call`
// line that works as printed; the worker's file tools stay confined to
// that directory.
func TestUpServesToolsOnItsDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	workdir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(workdir, "marker.txt"), "up test\n")
	env := append(os.Environ(), "XDG_CONFIG_HOME="+home, "HOME="+home)
	up := exec.Command(testutil.Binary(t, "toolbus"), "up", "--listen", testutil.FreeAddr(t), "--data-dir", t.TempDir())
	up.Dir, up.Env = workdir, env
	summary := readUntil(t, up, "Try a tool:")
	if !strings.Contains(summary, "created your key in") {
		t.Errorf("first run did not say it created the key:\n%s", summary)
	}
	keyFile := filepath.Join(home, "toolbus", "key")
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v, mode %v; want 0600", keyFile, err, st.Mode().Perm())
	}
	m := regexp.MustCompile(`toolbus call --relay (\S+) --to (\S+) shell`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("no call line in the summary:\n%s", summary)
	}
	callTool := func(tool, args string) (string, error) {
		c := exec.Command(testutil.Binary(t, "toolbus"), "call", "--relay", m[1], "--to", m[2], tool, args)
		c.Env = env
		out, err := c.CombinedOutput()
		return string(out), err
	}
	if out, err := callTool("shell", `{"command":"ls"}`); err != nil || !strings.Contains(out, "marker.txt") {
		t.Fatalf("the printed call line: %v\n%s", err, out)
	}
	if out, err := callTool("read_file", `{"path":"marker.txt"}`); err != nil || !strings.Contains(out, "1:up test") {
		t.Fatalf("read_file in the directory: %v\n%s", err, out)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	writeFile(t, outside, "not yours\n")
	if out, err := callTool("read_file", `{"path":"`+outside+`"}`); err == nil || strings.Contains(out, "not yours") {
		t.Fatalf("read_file outside the directory was served (%v):\n%s", err, out)
	}
}

// readUntil starts cmd and returns its stdout up to and including the
// first line containing want; stderr goes to the test log.
func readUntil(t *testing.T, cmd *exec.Cmd, want string) string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = testLogWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var b strings.Builder
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("%s exited before %q:\n%s", cmd.Path, want, b.String())
			}
			b.WriteString(line + "\n")
			if strings.Contains(line, want) {
				go func() {
					for range lines {
					}
				}()
				return b.String()
			}
		case <-deadline:
			t.Fatalf("no %q from %s:\n%s", want, cmd.Path, b.String())
		}
	}
}

// testLogWriter sends a child's output to the test log.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
