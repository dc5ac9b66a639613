package main_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// An agent on a worker commits and pushes as the worker: the shell call's
// git is configured (process-scoped) to sign with the worker's key and to
// authenticate to the relay with it; the pushed commit verifies as signed
// by the worker.
func TestWorkerCommitsAndPushesAsItself(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	worker, caller := testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q, %q]\n[git]\nrequire_signed_commits = true\n",
		worker.PublicKey(), caller.PublicKey()))
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	workdir := t.TempDir()
	home := t.TempDir()
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "worker", "--relay", relayURL, "--workdir", workdir,
		"--key-file", keyFileFor(t, worker))
	cmd.Env = gitEnv(home)
	waitForLine(t, cmd, "worker ready")

	remote := httpURL + "/git/" + worker.NPub() + "/agent.git"
	script := "git init -q -b main && echo hi > f && git add f && git commit -q -m 'by the agent' && " +
		"git push -q " + remote + " main && git log --format=%G?%GK -1"
	out, code := runCLI(t, "call", "--relay", relayURL, "--key-file", keyFileFor(t, caller), "--to", worker.NPub(),
		"shell", fmt.Sprintf(`{"command":%q,"timeout":60000}`, script))
	if code != 0 || !strings.Contains(out, `"exit_code": 0`) || !strings.Contains(out, "G"+worker.PublicKey()) {
		t.Fatalf("worker commit+push: exit %d\n%s", code, out)
	}
	// A member clones it and verifies the signature independently.
	env := gitEnv(t.TempDir())
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k")
	signer.WriteKeyFile(keyFile, caller)
	clone := filepath.Join(dir, "c")
	must(t, env, dir, "git", "init", "-q", clone)
	must(t, env, clone, testutil.Binary(t, "toolbus"), "git", "setup", "--key-file", keyFile, "--remote", remote)
	must(t, env, clone, "git", "pull", "-q", "origin", "main")
	if got := must(t, env, clone, "git", "log", "--format=%G?%GK", "-1"); !strings.Contains(got, worker.PublicKey()) {
		t.Fatalf("clone: commit not verified as the worker's: %q", got)
	}
}
