package mcpadapter

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/internal/testutil"
)

// A bridged child that dies is restarted, and its tools work again.
func TestBridgeRestartsDeadChild(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("bridged\n"), 0o644)
	pidFile := filepath.Join(t.TempDir(), "pid")
	bin := testutil.Binary(t, "toolbus")
	script := "echo $$ > " + pidFile + " && exec " + bin + " tools --stdio --workdir " + dir
	b, err := NewBridge(BridgeOptions{Name: "fs", Command: []string{"/bin/sh", "-c", script},
		Env: os.Environ(), MinBackoff: 50_000_000, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	go b.Run(ctx)
	<-b.Ready()
	ct, st := mcp.NewInMemoryTransports()
	go b.Server().Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "f.txt"}})
		if err != nil || res.IsError {
			return ""
		}
		return textOf(res)
	}
	if !strings.Contains(read(), "bridged") {
		t.Fatal("bridged tool did not work")
	}
	first := readPID(t, pidFile)
	syscall.Kill(first, syscall.SIGKILL)
	waitUntil(t, "child restarted and serving", func() bool {
		return readPID(t, pidFile) != first && strings.Contains(read(), "bridged")
	})
}

func readPID(t *testing.T, path string) int {
	data, _ := os.ReadFile(path)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}
