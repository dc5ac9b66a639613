package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// The relay dies by SIGKILL — no close frames, no flush — while a `toolbus
// worker` process and an adapter are connected and a call is in flight. It
// comes back on the same address and data dir. The worker reconnects and
// announces itself again, the adapter serves the worker's tools again, a new
// call succeeds, and the in-flight call ended with a result or a
// timeout/unavailable error within a bound, never a hang.
func TestRelayKill9UnderWorkerProcessAndAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	user, worker := testutil.NewKey(t), testutil.NewKey(t)
	cfg := fmt.Sprintf("[workspace]\nmembers = [%q, %q]\n", user.PublicKey(), worker.PublicKey())
	addr, dataDir := testutil.FreeAddr(t), t.TempDir()
	url := "ws://" + addr
	relay := startRelayAt(t, addr, dataDir, cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	startFaultWorker(t, url, worker, "kw")
	cs := startAdapterSession(t, ctx, url, user)
	shell := func(command string) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "kw__shell", Arguments: map[string]any{"command": command}})
	}
	if res, err := shell("echo before"); err != nil || res.IsError || !strings.Contains(faultText(res), "before") {
		t.Fatalf("before the kill: %v %+v", err, res)
	}
	before := faultAnnouncedAt(t, ctx, url, user, worker.PublicKey())
	if len(before) != 2 {
		t.Fatalf("worker announcements before the kill: %v", before)
	}

	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	inflight := make(chan outcome, 1)
	go func() {
		res, err := shell("sleep 2; echo in-flight done")
		inflight <- outcome{res, err}
	}()
	// The call is on its way (the worker runs it for 2 s); kill the relay
	// under it, at least a second after the first announcements, so that
	// new ones carry a later created_at.
	time.Sleep(1200 * time.Millisecond)
	if err := relay.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	relay.Wait()
	startRelayAt(t, addr, dataDir, cfg)

	select {
	case o := <-inflight:
		if o.err != nil {
			t.Fatalf("in-flight call ended in a protocol error, not a result: %v", o.err)
		}
		if e := bus.ResultError(o.res); e != nil && e.Code != bus.CodeTimeout && e.Code != bus.CodeUnavailable {
			t.Fatalf("in-flight call: unexpected classification %+v", e)
		} else if e == nil && !strings.Contains(faultText(o.res), "in-flight done") {
			t.Fatalf("in-flight call succeeded with the wrong result: %+v", o.res)
		}
		t.Logf("in-flight call ended with isError=%v: %s", o.res.IsError, faultText(o.res))
	case <-time.After(60 * time.Second):
		t.Fatal("in-flight call hung across the kill")
	}

	// The data dir kept the old announcements; newer ones can only come
	// from the worker announcing itself again after reconnecting.
	deadline := time.Now().Add(30 * time.Second)
	for {
		after := faultAnnouncedAt(t, ctx, url, user, worker.PublicKey())
		if len(after) == 2 && after[bus.KindServerAnnouncement] > before[bus.KindServerAnnouncement] &&
			after[bus.KindToolsList] > before[bus.KindToolsList] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker did not re-announce on the restarted relay: before %v, after %v", before, after)
		}
		time.Sleep(100 * time.Millisecond)
	}
	deadline = time.Now().Add(60 * time.Second)
	for {
		tools, err := cs.ListTools(ctx, nil)
		listed := err == nil && faultListsTool(tools.Tools, "kw__shell")
		res, err := shell("echo after")
		if listed && err == nil && !res.IsError && strings.Contains(faultText(res), "after") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no working call through the adapter after the restart: listed=%v %v %+v", listed, err, res)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startFaultWorker runs `toolbus worker` as key under name, with its quota
// raised so that retries after the restart are not rate limited.
func startFaultWorker(t *testing.T, url string, key *signer.Local, name string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "worker", "--relay", url, "--workdir", t.TempDir(),
		"--name", name, "--quota", "1000", "--quota-burst", "1000", "--git-identity=false")
	cmd.Env = append(os.Environ(), "NOSTR_PRIVATE_KEY="+key.NSec(), "XDG_CONFIG_HOME="+t.TempDir())
	waitForLine(t, cmd, "worker ready")
	return cmd
}

// faultAnnouncedAt returns the created_at of author's stored server and tools
// announcements, by kind.
func faultAnnouncedAt(t *testing.T, ctx context.Context, url string, key *signer.Local, author string) map[int]nostr.Timestamp {
	t.Helper()
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := bus.Dial(qctx, url, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	evs, err := c.Query(qctx, nostr.Filters{{Kinds: []int{bus.KindServerAnnouncement, bus.KindToolsList}, Authors: []string{author}}})
	if err != nil {
		t.Fatal(err)
	}
	at := map[int]nostr.Timestamp{}
	for _, ev := range evs {
		at[ev.Kind] = max(at[ev.Kind], ev.CreatedAt)
	}
	return at
}

func faultListsTool(tools []*mcp.Tool, name string) bool {
	for _, tl := range tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}

func faultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
