package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// `toolbus git credential` and `toolbus git sign`, called by those names
// (not through a git-credential-nostr / git-sign-nostr argv0), are enough
// to push, clone and sign: the relay (require_signed_commits) accepts the
// signed commit, and a second member's clone verifies it.
func TestToolbusGitSubcommands(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, bob := testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q, %q]\n[git]\nrequire_signed_commits = true\n",
		alice.PublicKey(), bob.PublicKey()))
	remote := strings.Replace(relayURL, "ws://", "http://", 1) + "/git/" + alice.NPub() + "/proj.git"
	bin := testutil.Binary(t, "toolbus")

	// One wrapper for gpg.x509.program, which git runs without a shell, so
	// it cannot carry arguments itself; it execs `toolbus git sign`.
	wrapDir := t.TempDir()
	sign := filepath.Join(wrapDir, "toolbus-git-sign")
	if err := os.WriteFile(sign, []byte("#!/bin/sh\nexec '"+bin+"' git sign \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// configure sets up a checkout for key with only toolbus subcommands;
	// the key is found through nostr.keyfile, never the environment.
	configure := func(dir string, env []string, key *signer.Local, keyFile string) {
		t.Helper()
		for _, kv := range [][2]string{
			{"credential.helper", bin + " git credential"}, {"credential.useHttpPath", "true"},
			{"gpg.format", "x509"}, {"gpg.x509.program", sign}, {"user.signingkey", key.NPub()},
			{"nostr.keyfile", keyFile}, {"user.name", "n"}, {"user.email", "n@example"},
		} {
			must(t, env, dir, "git", "config", "--local", kv[0], kv[1])
		}
	}

	aliceHome := t.TempDir()
	aenv := withoutKeys(gitEnv(aliceHome))
	repo := filepath.Join(aliceHome, "proj")
	must(t, aenv, aliceHome, "git", "init", "-q", "-b", "main", repo)
	aliceKey := filepath.Join(aliceHome, "key")
	if err := signer.WriteKeyFile(aliceKey, alice); err != nil {
		t.Fatal(err)
	}
	configure(repo, aenv, alice, aliceKey)
	writeFile(t, filepath.Join(repo, "README"), "hello\n")
	must(t, aenv, repo, "git", "add", ".")
	must(t, aenv, repo, "git", "commit", "-q", "-S", "-m", "signed")
	must(t, aenv, repo, "git", "verify-commit", "HEAD")
	must(t, aenv, repo, "git", "push", "-q", remote, "main")
	head := strings.TrimSpace(must(t, aenv, repo, "git", "rev-parse", "HEAD"))

	// Bob clones through `toolbus git credential` (set for the clone with
	// -c, as there is no checkout yet) and verifies with `toolbus git sign`.
	bobHome := t.TempDir()
	benv := withoutKeys(gitEnv(bobHome))
	bobKey := filepath.Join(bobHome, "key")
	if err := signer.WriteKeyFile(bobKey, bob); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(bobHome, "proj")
	must(t, benv, bobHome, "git", "-c", "credential.helper="+bin+" git credential", "-c", "credential.useHttpPath=true",
		"-c", "nostr.keyfile="+bobKey, "clone", "-q", remote, clone)
	configure(clone, benv, bob, bobKey)
	if got := strings.TrimSpace(must(t, benv, clone, "git", "rev-parse", "HEAD")); got != head {
		t.Fatalf("cloned HEAD %s, pushed %s", got, head)
	}
	must(t, benv, clone, "git", "verify-commit", "HEAD")
	if log := must(t, benv, clone, "git", "log", "--show-signature", "-1"); !strings.Contains(log, alice.NPub()) {
		t.Fatalf("git log --show-signature does not name the signer:\n%s", log)
	}
	// A tampered commit (same signature, other message) does not verify.
	raw := must(t, benv, clone, "git", "cat-file", "commit", "HEAD")
	forged := strings.Replace(raw, "\nsigned\n", "\nforged\n", 1)
	forgedPath := filepath.Join(bobHome, "forged")
	writeFile(t, forgedPath, forged)
	id := strings.TrimSpace(must(t, benv, clone, "git", "hash-object", "-t", "commit", "-w", forgedPath))
	if out, err := run(t, benv, clone, "git", "verify-commit", id); err == nil {
		t.Fatalf("a tampered commit verifies:\n%s", out)
	}
}

// `toolbus git setup --dir DIR`, run from inside another repository,
// configures DIR's local config only (its existing origin repointed): the
// current repository and the global config are untouched, and DIR pushes
// signed commits.
func TestGitSetupDir(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice := testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q]\n[git]\nrequire_signed_commits = true\n",
		alice.PublicKey()))
	remote := strings.Replace(relayURL, "ws://", "http://", 1) + "/git/" + alice.NPub() + "/proj.git"
	bin := testutil.Binary(t, "toolbus")

	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	const globalText = "[user]\n\temail = a@example\n\tname = a\n"
	writeFile(t, global, globalText)
	env := append(withoutKeys(gitEnv(home)), "GIT_CONFIG_GLOBAL="+global)
	keyFile := filepath.Join(home, "key")
	if err := signer.WriteKeyFile(keyFile, alice); err != nil {
		t.Fatal(err)
	}
	cwd, proj := filepath.Join(home, "elsewhere"), filepath.Join(home, "proj")
	must(t, env, home, "git", "init", "-q", "-b", "main", cwd)
	must(t, env, home, "git", "init", "-q", "-b", "main", proj)
	// DIR already has an origin (the cwd has none): setup repoints it.
	must(t, env, proj, "git", "remote", "add", "origin", "https://example.invalid/old.git")
	cwdBefore := must(t, env, cwd, "git", "config", "--local", "--list")

	must(t, env, cwd, bin, "git", "setup", "--dir", "../proj", "--key-file", "../key", "--remote", remote)

	local := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(must(t, env, proj, "git", "config", "--local", "--list")), "\n") {
		k, v, _ := strings.Cut(line, "=")
		local[k] = append(local[k], v)
	}
	helpers := local["credential.helper"]
	if len(helpers) != 2 || helpers[0] != "" || filepath.Base(helpers[1]) != "git-credential-nostr" {
		t.Errorf("credential.helper = %q, want a reset then git-credential-nostr", helpers)
	}
	prog := local["gpg.x509.program"]
	if len(prog) != 1 || filepath.Base(prog[0]) != "git-sign-nostr" {
		t.Errorf("gpg.x509.program = %q", prog)
	}
	for k, v := range map[string]string{
		"credential.usehttppath": "true", "gpg.format": "x509", "commit.gpgsign": "true", "tag.gpgsign": "true",
		"user.signingkey": alice.NPub(), "user.name": alice.NPub(), "nostr.keyfile": keyFile, "remote.origin.url": remote,
	} {
		if got := local[k]; len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q in DIR's local config, want %q", k, got, v)
		}
	}
	if after := must(t, env, cwd, "git", "config", "--local", "--list"); after != cwdBefore {
		t.Errorf("the current directory's repository was configured:\n%s\nwas:\n%s", after, cwdBefore)
	}
	if b, err := os.ReadFile(global); err != nil || string(b) != globalText {
		t.Errorf("global config changed: %q, %v", b, err)
	}
	if t.Failed() {
		t.FailNow()
	}

	writeFile(t, filepath.Join(proj, "f"), "f\n")
	must(t, env, proj, "git", "add", ".")
	must(t, env, proj, "git", "commit", "-q", "-m", "f")
	must(t, env, proj, "git", "verify-commit", "HEAD")
	must(t, env, proj, "git", "push", "-q", "origin", "main")
	head := strings.TrimSpace(must(t, env, proj, "git", "rev-parse", "HEAD"))
	if ls := must(t, env, proj, "git", "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(ls, head) {
		t.Fatalf("relay main is not %s:\n%s", head, ls)
	}
}
