package gitbridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/gitbridge"
	"toolbus/signer"
)

// A repository announced public is readable by anyone, unauthenticated
// included, but still only writable by its owner and maintainers.
func TestPublicRepo(t *testing.T) {
	h := newHarness(t, nil)
	work := h.seed(h.owner, "app")
	h.announce(h.owner, "app", &gitbridge.RepoAnnouncement{Public: true})
	for _, key := range []*signer.Local{nil, h.outsider} {
		if _, out, err := h.clone(key, h.url(h.owner, "app")); err != nil {
			t.Fatalf("clone of a public repository (key %v): %v\n%s", key, err, out)
		}
	}
	h.commit(work, "b", "b\n")
	if out, err := h.git(nil, work, "push", h.url(h.owner, "app"), "main"); err == nil {
		t.Fatalf("anonymous push:\n%s", out)
	}
	if out, err := h.git(h.outsider, work, "push", h.url(h.owner, "app"), "main"); err == nil || !strings.Contains(out, "403") {
		t.Fatalf("outsider push to a public repository: err=%v\n%s", err, out)
	}
}

// The owner's first push creates the repository, with HEAD on the branch
// pushed even when that is not "main".
func TestFirstPushSetsHEAD(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.mustGit(nil, dir, "init", "-q", "-b", "trunk")
	h.commit(dir, "a", "a\n")
	h.mustGit(h.owner, dir, "push", "-q", h.url(h.owner, "app"), "trunk")
	head, err := os.ReadFile(filepath.Join(h.serverRepo(h.owner, "app"), "HEAD"))
	if err != nil || strings.TrimSpace(string(head)) != "ref: refs/heads/trunk" {
		t.Fatalf("HEAD = %q, %v", head, err)
	}
	if tag := h.lastState().Tags.Find("HEAD"); len(tag) < 2 || tag[1] != "ref: refs/heads/trunk" {
		t.Fatalf("state HEAD tag = %v", tag)
	}
}

// The server's own GIT_* environment must not reach the git it runs (nor
// the hooks): these would break every request if inherited.
func TestServerEnvironmentNotInherited(t *testing.T) {
	t.Setenv("GIT_DIR", "/nonexistent")
	t.Setenv("GIT_OBJECT_DIRECTORY", "/nonexistent")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='/nonexistent'")
	h := newHarness(t, nil)
	work := h.seed(h.owner, "app")
	h.mustGit(nil, work, "commit", "-q", "--amend", "-m", "rewritten")
	if out, err := h.git(h.owner, work, "push", "--force", h.url(h.owner, "app"), "main"); err == nil ||
		!strings.Contains(out, "is protected") {
		t.Fatalf("the hook did not run: err=%v\n%s", err, out)
	}
}
