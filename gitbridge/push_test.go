package gitbridge_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"toolbus/gitbridge"
)

// Eight clients push different commits to one branch at once: exactly one
// wins, the repository stays consistent, and the last state event tells
// the truth.
func TestConcurrentPushes(t *testing.T) {
	const n = 8
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	url := h.url(h.owner, "app")
	works := make([]string, n)
	for i := range works {
		dir, out, err := h.clone(h.owner, url)
		if err != nil {
			t.Fatalf("clone: %v\n%s", err, out)
		}
		h.commit(dir, fmt.Sprintf("f%d", i), fmt.Sprintf("%d\n", i))
		works[i] = dir
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i, dir := range works {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = h.git(h.owner, dir, "push", "-q", "origin", "main")
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("pushes %d and %d both succeeded", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no push succeeded")
	}
	repo := h.serverRepo(h.owner, "app")
	if out, err := exec.Command("git", "--git-dir", repo, "fsck", "--full", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	locks, _ := filepath.Glob(filepath.Join(repo, "refs", "heads", "*.lock"))
	if len(locks) > 0 {
		t.Fatalf("stale lock files: %v", locks)
	}
	want := strings.TrimSpace(h.mustGit(nil, works[winner], "rev-parse", "HEAD"))
	remote := h.mustGit(h.owner, works[0], "ls-remote", "--symref", url)
	if !strings.Contains(remote, want+"\trefs/heads/main") {
		t.Fatalf("main is not the winner's commit %s:\n%s", want, remote)
	}
	compareState(t, remote, h.lastState().Tags)
}

// testSig is the fake signature scheme of these tests, standing in for
// NIP-GS: an armored block holding the signer's pubkey and the SHA-256 of
// the payload. It spans several lines so the gpgsig continuation lines
// are exercised.
func testSig(pk string, payload []byte) string {
	sum := sha256.Sum256(payload)
	return "-----BEGIN TESTSIG-----\n" + pk + "\n" + hex.EncodeToString(sum[:]) + "\n-----END TESTSIG-----"
}

// verifyTestSig is the VerifySignature of these tests.
func verifyTestSig(payload, sig []byte) (string, error) {
	lines := strings.Split(strings.TrimSuffix(string(sig), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "-----BEGIN TESTSIG-----" {
		return "", errors.New("not a test signature")
	}
	if testSig(lines[1], payload) != string(sig[:len(sig)-1]) {
		return "", errors.New("payload does not match")
	}
	return lines[1], nil
}

// signedCommit commits the index on top of HEAD (or as a root commit when
// there is no HEAD yet), signed by pk, or unsigned when pk is "". With
// tamper the message is changed after signing.
func (h *harness) signedCommit(dir, pk string, tamper bool) {
	h.t.Helper()
	tree := strings.TrimSpace(h.mustGit(nil, dir, "write-tree"))
	head := "tree " + tree + "\n"
	if parent, err := h.git(nil, dir, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
		head += "parent " + strings.TrimSpace(parent) + "\n"
	}
	head += "author T <t@x> 1700000000 +0000\ncommitter T <t@x> 1700000000 +0000\n"
	msg := "\nchange by " + pk + "\n"
	obj := head + msg
	if pk != "" {
		sig := testSig(pk, []byte(obj))
		if tamper {
			msg = "\ntampered\n"
		}
		obj = head + "gpgsig " + strings.ReplaceAll(sig, "\n", "\n ") + "\n" + msg
	}
	path := filepath.Join(h.t.TempDir(), "commit")
	if err := os.WriteFile(path, []byte(obj), 0o644); err != nil {
		h.t.Fatal(err)
	}
	id := strings.TrimSpace(h.mustGit(nil, dir, "hash-object", "-t", "commit", "-w", path))
	h.mustGit(nil, dir, "update-ref", "HEAD", id)
}

// With require_signed_commits, every new commit needs a valid signature by
// a member; the pusher is told which commit failed and why. Commits the
// repository already has are not checked again.
func TestRequireSignedCommits(t *testing.T) {
	h := newHarness(t, func(o *gitbridge.Options) {
		o.RequireSignedCommits = true
		o.VerifySignature = verifyTestSig
	})
	url := h.url(h.owner, "app")
	dir := t.TempDir()
	h.mustGit(nil, dir, "init", "-q")
	h.commit(dir, "a", "a\n")
	if out, err := h.git(h.owner, dir, "push", url, "main"); err == nil || !strings.Contains(out, "is not signed") {
		t.Fatalf("unsigned first push: err=%v\n%s", err, out)
	}
	h.mustGit(nil, dir, "update-ref", "-d", "HEAD")
	h.signedCommit(dir, h.member.PublicKey(), false)
	h.mustGit(h.owner, dir, "push", "-q", url, "main")
	cases := []struct {
		name, pk, want string
		tamper         bool
	}{
		{"unsigned", "", "is not signed", false},
		{"non-member", h.outsider.PublicKey(), "not a workspace member", false},
		{"tampered", h.member.PublicKey(), "invalid signature: payload does not match", true},
		{"member", h.member.PublicKey(), "", false},
	}
	for i, c := range cases {
		h.mustGit(nil, dir, "commit", "-q", "--allow-empty", "-m", "base "+c.name)
		h.mustGit(nil, dir, "reset", "-q", "--soft", "HEAD~1") // keep HEAD on the pushed tip
		os.WriteFile(filepath.Join(dir, c.name), []byte(c.name), 0o644)
		h.mustGit(nil, dir, "add", c.name)
		h.signedCommit(dir, c.pk, c.tamper)
		out, err := h.git(h.owner, dir, "push", url, "main")
		if c.want == "" && err != nil {
			t.Fatalf("case %d %s: %v\n%s", i, c.name, err, out)
		}
		if c.want != "" && (err == nil || !strings.Contains(out, c.want)) {
			t.Fatalf("case %d %s: err=%v\n%s", i, c.name, err, out)
		}
		if c.want != "" {
			h.mustGit(nil, dir, "reset", "-q", "--soft", "HEAD~1")
		}
	}
	// Pointing a new ref at commits the repository already has adds none.
	h.mustGit(h.owner, dir, "push", "-q", url, "main:refs/heads/copy")
}
