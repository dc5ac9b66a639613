package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/relay"
	"toolbus/signer"
)

// Revocation is immediate and total: one NIP-86 call removing a member ends
// their open subscriptions, makes workers refuse their next call, and turns
// their clone of a private repository into a 404.
func TestRevocationIsImmediateAndTotal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	admin, worker, victim := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nadmins = [%q]\nmembers = [%q]\n", admin.PublicKey(), worker.PublicKey()))
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := relay.Manage(ctx, httpURL, admin, "allowpubkey", victim.PublicKey(), "contractor"); err != nil {
		t.Fatal(err)
	}

	// A private repo of the admin's, readable by members.
	remote := httpURL + "/git/" + admin.NPub() + "/private.git"
	pushRepo(t, admin, remote)
	victimHome := t.TempDir()
	venv := gitEnv(victimHome)
	vkey := filepath.Join(victimHome, "v.key")
	signer.WriteKeyFile(vkey, victim)
	clone := filepath.Join(victimHome, "c")
	must(t, venv, victimHome, "git", "init", "-q", clone)
	must(t, venv, clone, testutil.Binary(t, "toolbus"), "git", "setup", "--key-file", vkey, "--remote", remote)
	must(t, venv, clone, "git", "ls-remote", "origin")

	// A worker following the workspace members, and the victim's client.
	startEchoWorkerAt(t, ctx, relayURL, worker)
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: victim, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() }) // before the test ends: it logs while reconnecting
	client, err := bus.NewClient(ctx, conn, victim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := client.CallTool(ctx, worker.PublicKey(), "echo", map[string]any{"text": "before"}); err != nil || res.IsError {
		t.Fatalf("call before removal: %v %+v", err, res)
	}
	// An open subscription to the workspace's notes.
	sub := testutil.DialRaw(t, relayURL)
	sub.Auth(victim, relayURL)
	sub.SendJSON([]any{"REQ", "notes", nostr.Filter{Kinds: []int{1}, LimitZero: true}})
	sub.Expect("EOSE", "")

	// One step.
	if _, err := relay.Manage(ctx, httpURL, admin, "unallowpubkey", victim.PublicKey()); err != nil {
		t.Fatal(err)
	}

	sub.Expect("CLOSED", "restricted:")
	pub := testutil.DialRaw(t, relayURL)
	pub.SendJSON([]any{"EVENT", testutil.Signed(t, admin, 1, "after the removal")})
	pub.ExpectAccepted()
	sub.SendJSON([]any{"REQ", "probe", nostr.Filter{Kinds: []int{1}}})
	if m := sub.Next(10 * time.Second); testutil.Label(m) != "CLOSED" {
		t.Fatalf("removed member could still read: %s", m)
	}
	_, err = client.CallTool(ctx, worker.PublicKey(), "echo", map[string]any{"text": "after"})
	if bus.CodeOf(err) != bus.CodeUnauthorized {
		t.Fatalf("call after removal: want unauthorized, got %v", err)
	}
	out, err := run(t, venv, clone, "git", "ls-remote", "origin")
	if err == nil || !strings.Contains(out, "not found") {
		t.Fatalf("clone after removal: want 404, got %v\n%s", err, out)
	}
}

func pushRepo(t *testing.T, owner *signer.Local, remote string) {
	home := t.TempDir()
	env := gitEnv(home)
	key := filepath.Join(home, "k")
	signer.WriteKeyFile(key, owner)
	repo := filepath.Join(home, "r")
	must(t, env, home, "git", "init", "-q", "-b", "main", repo)
	must(t, env, repo, testutil.Binary(t, "toolbus"), "git", "setup", "--key-file", key, "--remote", remote)
	os.WriteFile(filepath.Join(repo, "f"), []byte("x\n"), 0o644)
	must(t, env, repo, "git", "add", ".")
	must(t, env, repo, "git", "-c", "user.email=o@example", "commit", "-q", "-m", "init")
	must(t, env, repo, "git", "push", "-q", "origin", "main")
}

func startEchoWorkerAt(t *testing.T, ctx context.Context, relayURL string, key *signer.Local) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() }) // before the test ends: it logs while reconnecting
	relayKey, err := bus.RelayPubKey(ctx, relayURL)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := bus.NewServer(key, s, &bus.ServerOptions{RelayPubKey: relayKey, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ctx, conn)
	<-srv.Ready()
}
