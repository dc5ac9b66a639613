package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// gitEnv isolates git from the machine's configuration.
func gitEnv(home string) []string {
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_DATE=2026-11-30T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-30T10:00:00Z")
}

func run(t *testing.T, env []string, dir, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func must(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	out, err := run(t, env, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// Git on the relay through the toolbus binary: `toolbus git setup`, a
// signed commit pushed over NIP-98, cloned and verified by another member;
// with require_signed_commits an unsigned commit is refused.
func TestGitSetupPushCloneVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, bob := testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q, %q]\n[git]\nrequire_signed_commits = true\n",
		alice.PublicKey(), bob.PublicKey()))
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	bin := testutil.Binary(t, "toolbus")
	remote := httpURL + "/git/" + alice.NPub() + "/proj.git"

	aliceHome := t.TempDir()
	env := gitEnv(aliceHome)
	aliceKey := filepath.Join(aliceHome, "alice.key")
	signer.WriteKeyFile(aliceKey, alice)
	repo := filepath.Join(aliceHome, "proj")
	must(t, env, aliceHome, "git", "init", "-q", "-b", "main", repo)
	must(t, env, repo, bin, "git", "setup", "--key-file", aliceKey, "--remote", remote)
	os.WriteFile(filepath.Join(repo, "README"), []byte("hello\n"), 0o644)
	must(t, env, repo, "git", "add", ".")
	must(t, env, repo, "git", "-c", "user.email=alice@example", "commit", "-q", "-m", "first")
	must(t, env, repo, "git", "push", "-q", "origin", "main")

	// An unsigned commit is refused by the relay's pre-receive policy.
	os.WriteFile(filepath.Join(repo, "README"), []byte("unsigned\n"), 0o644)
	must(t, env, repo, "git", "-c", "user.email=alice@example", "-c", "commit.gpgSign=false", "commit", "-q", "-am", "unsigned")
	out, err := run(t, env, repo, "git", "push", "origin", "main")
	if err == nil || !strings.Contains(out, "remote:") {
		t.Fatalf("unsigned push accepted:\n%s", out)
	}

	bobHome := t.TempDir()
	benv := gitEnv(bobHome)
	bobKey := filepath.Join(bobHome, "bob.key")
	signer.WriteKeyFile(bobKey, bob)
	clone := filepath.Join(bobHome, "proj")
	must(t, benv, bobHome, "git", "init", "-q", clone)
	must(t, benv, clone, bin, "git", "setup", "--key-file", bobKey, "--remote", remote)
	must(t, benv, clone, "git", "pull", "-q", "origin", "main")
	must(t, benv, clone, "git", "verify-commit", "HEAD")
	log := must(t, benv, clone, "git", "log", "--show-signature", "-1")
	if !strings.Contains(log, alice.NPub()) {
		t.Fatalf("git log --show-signature does not name the signer:\n%s", log)
	}
	// Bob is a member but neither owner nor maintainer: he may not push.
	os.WriteFile(filepath.Join(clone, "BOB"), []byte("bob\n"), 0o644)
	must(t, benv, clone, "git", "add", ".")
	must(t, benv, clone, "git", "-c", "user.email=bob@example", "commit", "-q", "-m", "bob")
	if out, err := run(t, benv, clone, "git", "push", "origin", "HEAD:main"); err == nil {
		t.Fatalf("non-maintainer push accepted:\n%s", out)
	}
}
