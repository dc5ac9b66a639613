package gitbridge_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
	"toolbus/signer"
)

// The round trip through the real git binary and the credential helper:
// the owner creates a repository by pushing, a member clones, the owner
// pushes again, the member fetches.
func TestCloneFetchPush(t *testing.T) {
	h := newHarness(t, nil)
	work := h.seed(h.owner, "app")
	clone, out, err := h.clone(h.member, h.url(h.owner, "app"))
	if err != nil {
		t.Fatalf("member clone: %v\n%s", err, out)
	}
	h.commit(work, "b.txt", "two\n")
	h.mustGit(h.owner, work, "push", "-q", h.url(h.owner, "app"), "main")
	h.mustGit(h.member, clone, "fetch", "-q", "origin")
	want := strings.TrimSpace(h.mustGit(nil, work, "rev-parse", "HEAD"))
	got := strings.TrimSpace(h.mustGit(nil, clone, "rev-parse", "origin/main"))
	if got != want {
		t.Fatalf("fetched origin/main = %s, want %s", got, want)
	}
	// The owner may also be spelt in hex; protocol v0 works too.
	hexURL := h.srv.URL + "/git/" + h.owner.PublicKey() + "/app.git"
	if _, out, err := h.clone(h.member, hexURL); err != nil {
		t.Fatalf("clone by hex URL: %v\n%s", err, out)
	}
	if out, err := h.git(h.member, clone, "-c", "protocol.version=0", "fetch", "-q", hexURL); err != nil {
		t.Fatalf("v0 fetch: %v\n%s", err, out)
	}
}

// The key may come from `git config nostr.keyfile` instead of the
// environment.
func TestCredentialKeyFile(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	keyFile := filepath.Join(t.TempDir(), "member.key")
	if err := signer.WriteKeyFile(keyFile, h.member); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "w")
	out, err := h.git(nil, t.TempDir(), "-c", "nostr.keyfile="+keyFile, "clone", "-q", h.url(h.owner, "app"), dir)
	if err != nil {
		t.Fatalf("clone with nostr.keyfile: %v\n%s", err, out)
	}
}

// The state event lists exactly what ls-remote shows (branches, tags,
// HEAD), is signed by the relay key, and replaces its predecessor.
func TestStateEventMatchesLsRemote(t *testing.T) {
	h := newHarness(t, nil)
	work := h.seed(h.owner, "app")
	first := h.lastState()
	h.mustGit(nil, work, "branch", "feature")
	h.mustGit(nil, work, "tag", "-a", "-m", "v1", "v1.0")
	h.mustGit(nil, work, "tag", "light")
	h.announce(h.owner, "app", &gitbridge.RepoAnnouncement{Channel: "chan-1"})
	h.mustGit(h.owner, work, "push", "-q", h.url(h.owner, "app"), "main", "feature", "v1.0", "light")
	ev := h.lastState()
	h.mu.Lock()
	p := h.pushes[len(h.pushes)-1]
	h.mu.Unlock()
	if p.Channel != "chan-1" || p.State != ev || len(p.Updates) != 3 || p.URL != h.url(h.owner, "app") {
		t.Errorf("OnPush got %+v", p)
	}
	if ev.CreatedAt <= first.CreatedAt {
		t.Errorf("created_at %d does not follow %d", ev.CreatedAt, first.CreatedAt)
	}
	if ev.Kind != 30618 || ev.PubKey != h.relayKey.PublicKey() {
		t.Fatalf("kind %d by %s, want 30618 by the relay", ev.Kind, ev.PubKey)
	}
	if ok, _ := ev.CheckSignature(); !ok {
		t.Fatal("bad signature on state event")
	}
	wantD := h.owner.PublicKey() + "/app"
	if d := ev.Tags.GetD(); d != wantD {
		t.Errorf("d = %q, want %q", d, wantD)
	}
	if a := ev.Tags.Find("a"); len(a) < 2 || a[1] != "30617:"+h.owner.PublicKey()+":app" {
		t.Errorf("a tag = %v", a)
	}
	compareState(t, h.mustGit(h.member, work, "ls-remote", "--symref", h.url(h.owner, "app")), ev.Tags)
}

// compareState checks state tags against `git ls-remote --symref` output.
func compareState(t *testing.T, lsRemote string, tags nostr.Tags) {
	t.Helper()
	var want, got []string
	for _, line := range strings.Split(strings.TrimSpace(lsRemote), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case strings.HasPrefix(f[0], "ref: ") && f[1] == "HEAD":
			want = append(want, "HEAD "+f[0])
		case strings.HasPrefix(f[1], "refs/") && !strings.HasSuffix(f[1], "^{}"):
			want = append(want, f[1]+" "+f[0])
		}
	}
	for _, tag := range tags {
		if strings.HasPrefix(tag[0], "refs/") || tag[0] == "HEAD" {
			got = append(got, tag[0]+" "+tag[1])
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("state tags:\n%s\nls-remote:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A force-push or deletion of a protected branch is refused with a reason
// the pusher can read; other branches may be rewritten.
func TestProtectedBranch(t *testing.T) {
	h := newHarness(t, func(o *gitbridge.Options) { o.ProtectedBranches = []string{"main", "release/*"} })
	work := h.seed(h.owner, "app")
	url := h.url(h.owner, "app")
	h.commit(work, "b", "b\n")
	h.mustGit(h.owner, work, "push", "-q", url, "main", "main:release/1", "main:topic")
	h.mustGit(nil, work, "reset", "-q", "--hard", "HEAD~1")
	h.commit(work, "c", "c\n")
	for _, ref := range []string{"main", "release/1"} {
		out, err := h.git(h.owner, work, "push", "--force", url, "HEAD:"+ref)
		if err == nil || !strings.Contains(out, "remote: push refused: branch "+ref+" is protected: force-push") {
			t.Fatalf("force-push to %s: err=%v\n%s", ref, err, out)
		}
		out, err = h.git(h.owner, work, "push", url, ":"+ref)
		if err == nil || !strings.Contains(out, "branch "+ref+" is protected and cannot be deleted") {
			t.Fatalf("delete %s: err=%v\n%s", ref, err, out)
		}
	}
	h.mustGit(h.owner, work, "push", "-q", "--force", url, "HEAD:topic")
	h.mustGit(h.owner, work, "push", "-q", url, ":topic")
}

// Push rights: the owner and announced maintainers (who are members) push;
// a member who is neither gets 403; a non-member gets the 404 of a missing
// repository; the owner's rights end with their membership.
func TestPushAccess(t *testing.T) {
	h := newHarness(t, nil)
	work := h.seed(h.owner, "app")
	url := h.url(h.owner, "app")
	h.commit(work, "b", "b\n")
	out, err := h.git(h.member, work, "push", url, "main")
	if err == nil || !strings.Contains(out, "403") {
		t.Fatalf("member push: err=%v\n%s", err, out)
	}
	out, err = h.git(h.outsider, work, "push", url, "main")
	if err == nil || !strings.Contains(out, "not found") {
		t.Fatalf("outsider push: err=%v\n%s", err, out)
	}
	h.announce(h.owner, "app", &gitbridge.RepoAnnouncement{Maintainers: []string{h.maint.PublicKey()}})
	h.mustGit(h.maint, work, "push", "-q", url, "main")
	h.mu.Lock()
	p := h.pushes[len(h.pushes)-1]
	h.mu.Unlock()
	if p.Pusher != h.maint.PublicKey() || p.Repo != "app" {
		t.Errorf("OnPush got %+v", p)
	}
	// A maintainer cannot create the owner's other repositories.
	if out, err := h.git(h.maint, work, "push", h.url(h.owner, "other"), "main"); err == nil {
		t.Fatalf("maintainer created a repository:\n%s", out)
	}
	h.mu.Lock()
	delete(h.members, h.owner.PublicKey())
	h.mu.Unlock()
	h.commit(work, "c", "c\n")
	if out, err := h.git(h.owner, work, "push", url, "main"); err == nil {
		t.Fatalf("push by an owner who left the workspace:\n%s", out)
	}
}

// A private repository is invisible to non-members: cloning it fails
// exactly like cloning a repository that does not exist.
func TestPrivateRepoHidden(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	_, outExisting, err := h.clone(h.outsider, h.url(h.owner, "app"))
	if err == nil || !strings.Contains(outExisting, "not found") {
		t.Fatalf("outsider clone: err=%v\n%s", err, outExisting)
	}
	_, outMissing, _ := h.clone(h.outsider, h.url(h.owner, "nope"))
	norm := func(s string) string { return strings.ReplaceAll(s, "nope", "app") }
	if norm(outMissing) != outExisting {
		t.Fatalf("existing and missing repositories differ:\n%s\n---\n%s", outExisting, outMissing)
	}
	if _, out, err := h.clone(nil, h.url(h.owner, "app")); err == nil {
		t.Fatalf("anonymous clone of a private repository:\n%s", out)
	}
}
