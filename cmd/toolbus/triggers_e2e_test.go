package main_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// A git push to the relay makes a worker run the pushed commit's tests and
// a pass message appear in the repository's channel, referencing the push.
// The trigger runner is killed (-9) while the tests run and restarted: the
// tests ran once, and the result is still reported, once.
func TestPushTriggersTestsExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, worker, runner := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q, %q, %q]\n",
		alice.PublicKey(), worker.PublicKey(), runner.PublicKey()))
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The channel "ci", with the runner in it, and the repo bound to it.
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: alice, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() }) // before the test ends: it logs while reconnecting
	for _, ev := range []nostr.Event{
		testutil.Signed(t, alice, 9007, "", nostr.Tag{"h", "ci"}, nostr.Tag{"name", "CI"}),
		testutil.Signed(t, alice, 9000, "", nostr.Tag{"h", "ci"}, nostr.Tag{"p", runner.PublicKey()}),
		testutil.Signed(t, alice, 30617, "", nostr.Tag{"d", "proj"}, nostr.Tag{"h", "ci"}),
	} {
		if err := conn.Publish(ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}

	// A worker with its own checkout directory.
	runs := filepath.Join(t.TempDir(), "runs.log")
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "worker", "--relay", relayURL, "--workdir", t.TempDir(),
		"--key-file", keyFileFor(t, worker), "--name", "ci")
	cmd.Env = gitEnv(t.TempDir())
	waitForLine(t, cmd, "worker ready")

	// The runner, with its journal.
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "triggers.toml")
	writeFile(t, cfg, fmt.Sprintf(`relay = %q
key_file = %q
state_dir = %q
[[trigger]]
name = "test-on-push"
worker = %q
tool = "shell"
reply = "repo-channel"
timeout = "90s"
[trigger.filter]
kinds = [30618]
[trigger.arguments]
command = """
set -e
git init --quiet .
git fetch --quiet {{shq .Repo.CloneURL}} {{shq .Repo.Ref}}
git checkout --quiet --force --detach {{shq .Repo.Commit}}
make test"""
timeout = 60000
[trigger.message]
ok = "tests passed on {{.Repo.Branch}} ({{.Repo.Short}})"
fail = "tests failed on {{.Repo.Branch}} ({{.Repo.Short}})"
`, relayURL, keyFileFor(t, runner), state, worker.NPub()))
	first := exec.Command(testutil.Binary(t, "toolbus"), "triggers", "--config", cfg)
	calling := watchLines(t, first, "triggers ready", "msg=calling")

	// Alice pushes a project whose tests take a while and count their runs.
	makefile := fmt.Sprintf("test:\n\techo run >> %s\n\tsleep 3\n\techo all good\n", runs)
	pushFiles(t, alice, httpURL+"/git/"+alice.NPub()+"/proj.git", map[string]string{"Makefile": makefile})

	<-calling
	time.Sleep(1500 * time.Millisecond) // the tests are running on the worker
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	second := exec.Command(testutil.Binary(t, "toolbus"), "triggers", "--config", cfg)
	waitForLine(t, second, "triggers ready")

	var report *nostr.Event
	deadline := time.Now().Add(60 * time.Second)
	for report == nil && time.Now().Before(deadline) {
		evs, _ := conn.Query(ctx, nostr.Filters{{Kinds: []int{9}, Authors: []string{runner.PublicKey()}, Tags: nostr.TagMap{"h": {"ci"}}}})
		if len(evs) > 1 {
			t.Fatalf("%d reports for one push", len(evs))
		}
		if len(evs) == 1 {
			report = evs[0]
		}
		time.Sleep(200 * time.Millisecond)
	}
	if report == nil || !strings.Contains(report.Content, "tests passed on main") {
		t.Fatalf("no pass report in the channel: %+v", report)
	}
	states, _ := conn.Query(ctx, nostr.Filters{{Kinds: []int{30618}}})
	if len(states) != 1 || report.Tags.FindWithValue("e", states[0].ID) == nil {
		t.Fatalf("report does not reference the push event: %v", report.Tags)
	}
	data, _ := os.ReadFile(runs)
	if n := strings.Count(string(data), "run"); n != 1 {
		t.Fatalf("the tests ran %d times", n)
	}
}

// watchLines starts cmd and returns a channel closed at the first stderr
// line containing last, after one containing first (ready).
func watchLines(t *testing.T, cmd *exec.Cmd, ready, last string) <-chan struct{} {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	readyC, lastC := make(chan struct{}), make(chan struct{})
	go func() {
		sawReady, sawLast := false, false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("triggers: %s", sc.Text())
			if !sawReady && strings.Contains(sc.Text(), ready) {
				sawReady = true
				close(readyC)
			}
			if !sawLast && strings.Contains(sc.Text(), last) {
				sawLast = true
				close(lastC)
			}
		}
	}()
	select {
	case <-readyC:
	case <-time.After(30 * time.Second):
		t.Fatal("triggers runner not ready")
	}
	return lastC
}

// pushFiles commits files to a new repo and pushes it as owner.
func pushFiles(t *testing.T, owner *signer.Local, remote string, files map[string]string) {
	home := t.TempDir()
	env := gitEnv(home)
	key := filepath.Join(home, "k")
	signer.WriteKeyFile(key, owner)
	repo := filepath.Join(home, "r")
	must(t, env, home, "git", "init", "-q", "-b", "main", repo)
	must(t, env, repo, testutil.Binary(t, "toolbus"), "git", "setup", "--key-file", key, "--remote", remote)
	for name, content := range files {
		writeFile(t, filepath.Join(repo, name), content)
	}
	must(t, env, repo, "git", "add", ".")
	must(t, env, repo, "git", "-c", "user.email=o@example", "commit", "-q", "-m", "tests")
	must(t, env, repo, "git", "push", "-q", "origin", "main")
}
