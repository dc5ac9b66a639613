package main_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/mcpadapter"
	"toolbus/signer"
)

type sleepArgs struct {
	MS int `json:"ms"`
}

// startRelayAt runs `toolbus relay` on addr with cfg and a data dir.
func startRelayAt(t *testing.T, addr, dataDir, cfg string) *exec.Cmd {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "toolbus.toml")
	writeFile(t, cfgPath, cfg)
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "relay", "--config", cfgPath, "--data-dir", dataDir, "--listen", addr)
	waitForLine(t, cmd, "relay listening")
	return cmd
}

// The relay restarts — onto an empty data dir, so every announcement is
// gone — under a connected worker and adapter: both reconnect with backoff,
// the worker announces itself again, the adapter exposes its tools again,
// and a call that was in flight ends with a result or a classified error.
func TestRelayRestartUnderWorkerAndAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	user, worker := testutil.NewKey(t), testutil.NewKey(t)
	cfg := fmt.Sprintf("[workspace]\nmembers = [%q, %q]\n", user.PublicKey(), worker.PublicKey())
	addr := testutil.FreeAddr(t)
	url := "ws://" + addr
	relay := startRelayAt(t, addr, t.TempDir(), cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	startSleepyWorker(t, ctx, url, worker)
	cs := startAdapterSession(t, ctx, url, user)
	call := func(ms int) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleepy__sleep", Arguments: map[string]any{"ms": ms}})
	}
	if res, err := call(1); err != nil || res.IsError {
		t.Fatalf("before the restart: %v %+v", err, res)
	}

	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := call(1500)
		inflight <- res
	}()
	time.Sleep(300 * time.Millisecond)
	relay.Process.Signal(syscallTERM)
	relay.Wait()
	startRelayAt(t, addr, t.TempDir(), cfg)

	select {
	case res := <-inflight:
		if res == nil {
			t.Fatal("in-flight call ended in a protocol error, not a result")
		}
		if e := bus.ResultError(res); e != nil && e.Code != bus.CodeTimeout && e.Code != bus.CodeUnavailable {
			t.Fatalf("in-flight call: unexpected classification %+v", e)
		}
		t.Logf("in-flight call ended with isError=%v", res.IsError)
	case <-time.After(60 * time.Second):
		t.Fatal("in-flight call hung across the restart")
	}
	// The new relay started empty: the worker's announcements on it come
	// from the worker announcing itself again after reconnecting.
	probe, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: user, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { probe.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, _ := probe.Query(ctx, nostr.Filters{{Kinds: []int{bus.KindServerAnnouncement, bus.KindToolsList}, Authors: []string{worker.PublicKey()}}})
		if len(evs) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker did not re-announce on the restarted relay (%d announcements)", len(evs))
		}
		time.Sleep(100 * time.Millisecond)
	}
	deadline = time.Now().Add(60 * time.Second)
	for {
		res, err := call(1)
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no working call after the restart: %v %+v", err, res)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func startSleepyWorker(t *testing.T, ctx context.Context, url string, key *signer.Local) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "sleepy", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, req *mcp.CallToolRequest, in sleepArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
	})
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the test ends: a connection left reconnecting would
	// log into a finished test, which panics.
	t.Cleanup(func() { conn.Close() })
	relayKey, err := bus.RelayPubKey(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := bus.NewServer(key, s, &bus.ServerOptions{Name: "sleepy", Announce: true, RelayPubKey: relayKey, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	<-srv.Ready()
}

func startAdapterSession(t *testing.T, ctx context.Context, url string, key *signer.Local) *mcp.ClientSession {
	t.Helper()
	conn, err := bus.Dial(ctx, url, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the test ends: a connection left reconnecting would
	// log into a finished test, which panics.
	t.Cleanup(func() { conn.Close() })
	client, err := bus.NewClient(ctx, conn, key, &bus.ClientOptions{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	relayKey, err := bus.RelayPubKey(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	a, err := mcpadapter.New(mcpadapter.Options{Conn: conn, Client: client, RelayPubKey: relayKey,
		CallTimeout: 20 * time.Second, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	ct, st := mcp.NewInMemoryTransports()
	go a.Server().Run(sctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
