package main_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

type echoArgs struct {
	Text string `json:"text"`
}

// startEchoWorker serves an "echo" tool on the bus as key.
func startEchoWorker(t *testing.T, r *testutil.Relay, key *signer.Local) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := bus.NewServer(key, s, &bus.ServerOptions{RelayPubKey: r.Server.PublicKey(), Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("worker not ready")
	}
}

func keyFileFor(t *testing.T, key *signer.Local) string {
	path := filepath.Join(t.TempDir(), "key")
	if err := signer.WriteKeyFile(path, key); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(testutil.Binary(t, "toolbus"), args...).Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func TestCallCommand(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	startEchoWorker(t, r, r.Member)
	keyFile := keyFileFor(t, r.Admin)
	base := []string{"call", "--relay", r.URL, "--key-file", keyFile, "--to", r.Member.NPub()}

	for _, mode := range [][]string{nil, {"--plaintext"}, {"--ephemeral"}} {
		args := append(append(append([]string{}, base...), mode...), "echo", `{"text":"hello bus"}`)
		out, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "hello bus") {
			t.Fatalf("%v: exit %d, output %s", mode, code, out)
		}
	}
	out, code := runCLI(t, append(base, "--list")...)
	if code != 0 || !strings.Contains(out, `"echo"`) {
		t.Fatalf("--list: exit %d, %s", code, out)
	}
	out, code = runCLI(t, append(base, "nope", `{}`)...)
	if code != 1 || !strings.Contains(out, `"not_found"`) {
		t.Fatalf("unknown tool: exit %d, %s", code, out)
	}
	nobody := testutil.NewKey(t)
	out, code = runCLI(t, "call", "--relay", r.URL, "--key-file", keyFile, "--to", nobody.PublicKey(), "--timeout", "500ms", "echo", `{}`)
	if code != 2 || !strings.Contains(out, `"timeout"`) {
		t.Fatalf("no worker: exit %d, %s", code, out)
	}
}
