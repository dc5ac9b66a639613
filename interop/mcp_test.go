package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolbus/bus"
	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
	"toolbus/tools"
)

// everythingServer is the reference MCP server of the MCP project, from npm.
func everythingServer() []string {
	return []string{"node", filepath.Join(JSDir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}
}

// startToolsWorker serves the built-in tools on the bus as key, named name.
func startToolsWorker(t *testing.T, r *testutil.Relay, key *signer.Local, name, workdir string) {
	t.Helper()
	tl, err := tools.New(tools.Options{Workdir: workdir, Confine: true, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := bus.NewServer(key, tl.Server, &bus.ServerOptions{Name: name, Announce: true,
		RelayPubKey: r.Server.PublicKey(), Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	<-srv.Ready()
}

// startBridgeProcess runs `toolbus bridge --name name -- command...` as key.
func startBridgeProcess(t *testing.T, r *testutil.Relay, key *signer.Local, name string, command []string) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "bridge.key")
	if err := signer.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"bridge", "--name", name, "--relay", r.URL, "--key-file", keyFile, "--"}, command...)
	cmd := exec.Command(testutil.Binary(t, "toolbus"), args...)
	logs := &lineWaiter{t: t, want: "bridge ready", ready: make(chan struct{})}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	select {
	case <-logs.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("bridge not ready")
	}
}

// The official MCP TypeScript SDK spawns `toolbus mcp`, lists the tools of
// a toolbus worker and of a bridged @modelcontextprotocol/server-everything,
// calls them, receives progress, and cancels one.
func TestTypeScriptClientThroughAdapter(t *testing.T) {
	RequireJS(t)
	user, bridgeKey := testutil.NewKey(t), testutil.NewKey(t)
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, user.PublicKey(), bridgeKey.PublicKey())
	})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the worker\n"), 0o644)
	startToolsWorker(t, r, r.Member, "laptop", dir)
	startBridgeProcess(t, r, bridgeKey, "everything", everythingServer())
	keyFile := filepath.Join(t.TempDir(), "user.key")
	signer.WriteKeyFile(keyFile, user)

	res, err := RunStdioClient(t, []string{testutil.Binary(t, "toolbus"), "mcp", "--relay", r.URL, "--key-file", keyFile}, "", Actions(
		Action{Op: "list"},
		Action{Op: "call", Name: "laptop__read_file", Args: map[string]any{"path": "hello.txt"}},
		Action{Op: "call", Name: "everything__echo", Args: map[string]any{"message": "through the bus"}},
		Action{Op: "call", Name: "everything__get-sum", Args: map[string]any{"a": 20, "b": 22}},
		Action{Op: "call", Name: "everything__trigger-long-running-operation", Args: map[string]any{"duration": 1, "steps": 3}, Progress: true},
		Action{Op: "cancel", Name: "laptop__shell", Args: map[string]any{"command": "sleep 30"}, AfterMs: 1500},
	))
	if err != nil {
		t.Fatalf("%v\n%+v", err, res)
	}
	names := strings.Join(res.Steps[0].Tools, ",")
	for _, want := range []string{"laptop__shell", "laptop__read_file", "everything__echo", "everything__trigger-long-running-operation"} {
		if !strings.Contains(names, want) {
			t.Fatalf("tools/list lacks %s: %s", want, names)
		}
	}
	checks := map[int]string{1: "hello from the worker", 2: "through the bus", 3: "42"}
	for i, want := range checks {
		if !strings.Contains(string(res.Steps[i].Result), want) {
			t.Fatalf("step %d %s: want %q in %s", i, res.Steps[i].Name, want, res.Steps[i].Result)
		}
	}
	if p := res.Steps[4]; len(p.Progress) == 0 {
		t.Fatalf("no progress reached the TypeScript client: %+v", p)
	}
	if c := res.Steps[5]; !c.Cancelled {
		t.Fatalf("cancel: %+v", c)
	}
}
