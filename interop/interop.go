// Package interop runs stock ContextVM (@contextvm/sdk, JavaScript) clients
// and servers from Go tests, to show that toolbus's relay and tool bus work
// with the existing MCP-over-Nostr ecosystem.
//
// The scripts live in interop/js (cvm-server.mjs, cvm-client.mjs) and need
// Node.js 20+ and their npm packages (`cd interop/js && npm ci`). Tests call
// RequireJS first: it skips when those are missing, or fails when the
// environment variable TOOLBUS_REQUIRE_JS=1 (CI sets it), so CI cannot pass
// by silently skipping.
//
// Scripts are configured by environment variables (see the top of each
// script and README.md) and print one line of JSON on stdout; their stderr is
// forwarded to the test log.
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"
)

// RequireEnvVar makes RequireJS fail instead of skip when set to 1.
const RequireEnvVar = "TOOLBUS_REQUIRE_JS"

// MinNodeMajor is the oldest Node.js the scripts support.
const MinNodeMajor = 20

// JSDir is the absolute path of interop/js, found from this source file so
// that tests in any package (any working directory) can use it.
func JSDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("interop", "js")
	}
	return filepath.Join(filepath.Dir(file), "js")
}

var nodeCheck = sync.OnceValues(func() (string, error) {
	path, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node not found in PATH")
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("node --version: %w", err)
	}
	v := strings.TrimSpace(string(out))
	m := regexp.MustCompile(`^v(\d+)\.`).FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("node --version printed %q", v)
	}
	if major, _ := strconv.Atoi(m[1]); major < MinNodeMajor {
		return "", fmt.Errorf("node %s is too old (need v%d+)", v, MinNodeMajor)
	}
	return path, nil
})

// NodeAvailable reports whether a Node.js of at least MinNodeMajor is in PATH.
func NodeAvailable() bool {
	_, err := nodeCheck()
	return err == nil
}

// jsMissing says what is missing to run the scripts, or "".
func jsMissing() string {
	if _, err := nodeCheck(); err != nil {
		return err.Error()
	}
	for _, pkg := range []string{"@contextvm/sdk", "@modelcontextprotocol/sdk", "zod"} {
		if _, err := os.Stat(filepath.Join(JSDir(), "node_modules", pkg, "package.json")); err != nil {
			return fmt.Sprintf("%s is not installed in %s/node_modules", pkg, JSDir())
		}
	}
	return ""
}

// RequireJS skips the test when Node.js or the scripts' npm packages are
// missing — or fails it when TOOLBUS_REQUIRE_JS=1.
func RequireJS(t testing.TB) {
	t.Helper()
	missing := jsMissing()
	if missing == "" {
		return
	}
	msg := fmt.Sprintf("JavaScript interop unavailable: %s (install Node.js %d+ and run `cd interop/js && npm ci`)", missing, MinNodeMajor)
	if os.Getenv(RequireEnvVar) == "1" {
		t.Fatalf("%s; %s=1 forbids skipping", msg, RequireEnvVar)
	}
	t.Skip(msg)
}

// scriptEnvKeys are the variables the scripts read. They are removed from
// the inherited environment so a developer's shell cannot change a test;
// tests set the ones they need. (RELAY_TRACE, which only adds logging, is
// inherited.)
var scriptEnvKeys = []string{
	"SERVER_SK", "CLIENT_SK", "RELAY_URL", "SERVER_PK", "ENCRYPTION", "AUTH",
	"ANNOUNCE", "NAME", "STATELESS", "ACTIONS", "CALL_TIMEOUT_MS",
	"READY_TIMEOUT_MS", "EXIT_ON_STDIN_CLOSE", "LOG_LEVEL", "LOG_DESTINATION",
	"LOG_FILE", "LOG_ENABLED", "NODE_OPTIONS", "NOSTR_PRIVATE_KEY",
}

func scriptEnv(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, s := range scriptEnvKeys {
			if k == s {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	out = append(out, "LOG_DESTINATION=stderr") // stdout carries only the JSON line
	// Generous defaults: CI machines run many test binaries at once, and
	// JS gift-wrap crypto on a starved CPU can take seconds per message.
	for k, v := range map[string]string{"CALL_TIMEOUT_MS": "30000", "READY_TIMEOUT_MS": "20000"} {
		if _, set := env[k]; !set {
			out = append(out, k+"="+v)
		}
	}
	if _, set := env["RELAY_TRACE"]; !set && os.Getenv("RELAY_TRACE") == "" {
		// Relay refusals (OK false, CLOSED) in the test log explain
		// failures; RELAY_TRACE=2 in the test's environment logs everything.
		out = append(out, "RELAY_TRACE=1")
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func nodeCommand(ctx context.Context, script string, env map[string]string) *exec.Cmd {
	node, _ := nodeCheck()
	if node == "" {
		node = "node"
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join(JSDir(), script))
	cmd.Dir = JSDir()
	cmd.Env = scriptEnv(env)
	return cmd
}

// logLines forwards r to t.Log line by line with a prefix, keeps a copy, and
// closes done at EOF.
type logLines struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func forwardLines(t testing.TB, prefix string, r io.Reader) *logLines {
	l := &logLines{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			line := sc.Text()
			l.mu.Lock()
			l.lines = append(l.lines, line)
			l.mu.Unlock()
			t.Logf("%s %s", prefix, line)
		}
		io.Copy(io.Discard, r)
	}()
	return l
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// CVMServer is a running cvm-server.mjs.
type CVMServer struct {
	// PubKey is the server's hex public key.
	PubKey string
	// Ready is the server's ready line: EOSE says its subscription was
	// answered by the relay, Authed (with AUTH=1) that NIP-42 succeeded.
	Ready ServerReady

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *logLines
	stdout *logLines
	once   sync.Once
}

// ServerReady is the JSON line cvm-server.mjs prints when it serves.
type ServerReady struct {
	Ready  bool   `json:"ready"`
	PubKey string `json:"pubkey"`
	EOSE   bool   `json:"eose"`
	Authed *bool  `json:"authed"`
	Error  string `json:"error"`
}

// StartCVMServer runs cvm-server.mjs with env (SERVER_SK, RELAY_URL,
// ENCRYPTION, AUTH, ANNOUNCE, NAME), waits for its ready line and returns
// its public key and an idempotent stop (also run at cleanup).
func StartCVMServer(t testing.TB, env map[string]string) (pubkey string, stop func()) {
	t.Helper()
	s := StartCVMServerProc(t, env)
	return s.PubKey, s.Stop
}

// StartCVMServerProc is StartCVMServer returning the process handle, whose
// log can be inspected (Log, WaitLog).
func StartCVMServerProc(t testing.TB, env map[string]string) *CVMServer {
	t.Helper()
	RequireJS(t)
	e := map[string]string{"EXIT_ON_STDIN_CLOSE": "1"}
	for k, v := range env {
		e[k] = v
	}
	cmd := nodeCommand(context.Background(), "cvm-server.mjs", e)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start cvm-server.mjs: %v", err)
	}
	s := &CVMServer{cmd: cmd, stdin: stdin}
	s.stderr = forwardLines(t, "cvm-server:", stderr)
	t.Cleanup(s.Stop)

	readyc := make(chan ServerReady, 1)
	s.stdout = &logLines{done: make(chan struct{})}
	go func() {
		defer close(s.stdout.done)
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			var r ServerReady
			if !sent && json.Unmarshal([]byte(line), &r) == nil {
				readyc <- r
				sent = true
				continue
			}
			t.Logf("cvm-server stdout: %s", line)
		}
		if !sent {
			readyc <- ServerReady{Error: "exited before it was ready"}
		}
		io.Copy(io.Discard, stdout)
	}()

	select {
	case r := <-readyc:
		if !r.Ready || r.PubKey == "" {
			s.Stop()
			t.Fatalf("cvm-server.mjs not ready: %s", r.Error)
		}
		s.Ready, s.PubKey = r, r.PubKey
		if !r.EOSE {
			t.Logf("cvm-server.mjs: its subscription got no EOSE from the relay (refused?)")
		}
		if r.Authed != nil && !*r.Authed {
			t.Logf("cvm-server.mjs: NIP-42 AUTH did not succeed")
		}
	case <-time.After(60 * time.Second):
		s.Stop()
		t.Fatalf("cvm-server.mjs: no ready line within 60s")
	}
	return s
}

// Stop ends the server (SIGTERM, then kill after 5s) and waits for it.
func (s *CVMServer) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		s.stdin.Close()
		exited := make(chan struct{})
		go func() {
			<-s.stderr.done
			<-s.stdout.done
			close(exited)
		}()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-exited
		}
		s.cmd.Wait()
	})
}

// Log returns the server's stderr so far.
func (s *CVMServer) Log() string { return s.stderr.String() }

// WaitLog waits up to d for substr to appear in the server's stderr.
func (s *CVMServer) WaitLog(substr string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if strings.Contains(s.Log(), substr) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ClientResult is what cvm-client.mjs prints.
type ClientResult struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Server is the server's MCP serverInfo from initialize.
	Server *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server,omitempty"`
	ServerSupportsEncryption *bool `json:"serverSupportsEncryption,omitempty"`
	// Live says whether the client's subscription got EOSE (and AUTH
	// succeeded, with AUTH=1) before it sent anything.
	Live *struct {
		EOSE   bool  `json:"eose"`
		Authed *bool `json:"authed"`
	} `json:"live,omitempty"`
	Steps []StepResult `json:"steps"`
	// Stderr is the script's log.
	Stderr string `json:"-"`
}

// StepResult is the outcome of one ACTIONS step.
type StepResult struct {
	Op        string          `json:"op"`
	Name      string          `json:"name,omitempty"`
	OK        bool            `json:"ok"`
	Ms        int64           `json:"ms"`
	Tools     []string        `json:"tools,omitempty"`
	Result    *CallToolResult `json:"result,omitempty"`
	Progress  []Progress      `json:"progress,omitempty"`
	Cancelled bool            `json:"cancelled,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// CallToolResult is the MCP tools/call result as the JS client saw it.
type CallToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text,omitempty"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text joins the result's text content.
func (r *CallToolResult) Text() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Progress is one notifications/progress the client received.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Action is one step of cvm-client.mjs's ACTIONS.
type Action struct {
	Op       string         `json:"op"`
	Name     string         `json:"name,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
	Progress bool           `json:"progress,omitempty"`
	AfterMs  int            `json:"afterMs,omitempty"`
	Ms       int            `json:"ms,omitempty"`
}

// Actions encodes steps as the ACTIONS environment value.
func Actions(steps ...Action) string {
	b, err := json.Marshal(steps)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// RunCVMClient runs cvm-client.mjs with env (CLIENT_SK, RELAY_URL,
// SERVER_PK, ENCRYPTION, AUTH, STATELESS, ACTIONS; CALL_TIMEOUT_MS and
// READY_TIMEOUT_MS default to 30000 and 20000 here) and
// returns its parsed result. The error is non-nil when the script could not
// run, printed no result, or exited non-zero (a step or connect failed); the
// result is filled in as far as it got.
func RunCVMClient(t testing.TB, env map[string]string) (ClientResult, error) {
	t.Helper()
	RequireJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := nodeCommand(ctx, "cvm-client.mjs", env)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return ClientResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return ClientResult{}, fmt.Errorf("start cvm-client.mjs: %w", err)
	}
	logs := forwardLines(t, "cvm-client:", stderr)
	<-logs.done
	runErr := cmd.Wait()

	var res ClientResult
	res.Stderr = logs.String()
	line := lastJSONLine(stdout.String())
	if line == "" {
		return res, fmt.Errorf("cvm-client.mjs printed no result (%v); stdout: %q", runErr, stdout.String())
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return res, fmt.Errorf("cvm-client.mjs result %q: %w", line, err)
	}
	if runErr != nil {
		return res, fmt.Errorf("cvm-client.mjs: %w: %s", runErr, res.failure())
	}
	return res, nil
}

// failure summarises what went wrong in a result.
func (r ClientResult) failure() string {
	var parts []string
	if r.Error != "" {
		parts = append(parts, r.Error)
	}
	for i, s := range r.Steps {
		if !s.OK {
			parts = append(parts, fmt.Sprintf("step %d (%s %s): %s", i, s.Op, s.Name, s.Error))
		}
	}
	if len(parts) == 0 {
		return "no details"
	}
	return strings.Join(parts, "; ")
}

func lastJSONLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "{") {
			return l
		}
	}
	return ""
}

// SecretHex returns a secret key given as nsec or hex as 64 hex characters,
// the form the scripts take.
func SecretHex(nsecOrHex string) (string, error) {
	if strings.HasPrefix(nsecOrHex, "nsec1") {
		prefix, v, err := nip19.Decode(nsecOrHex)
		if err != nil {
			return "", fmt.Errorf("decode nsec: %w", err)
		}
		s, ok := v.(string)
		if prefix != "nsec" || !ok {
			return "", errors.New("decode nsec: not a secret key")
		}
		nsecOrHex = s
	}
	if b, err := hex.DecodeString(nsecOrHex); err != nil || len(b) != 32 {
		return "", errors.New("secret key must be nsec or 64 hex characters")
	}
	return strings.ToLower(nsecOrHex), nil
}
