package main_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/nip98"
	"toolbus/signer"
)

// helperUser is a git user whose HTTP credentials come from the
// git-credential-nostr binary (key in NOSTR_PRIVATE_KEY), or nobody's when
// key is nil: no helper at all, so requests go out anonymous.
type helperUser struct {
	home string
	env  []string
}

func newHelperUser(t *testing.T, key *signer.Local) helperUser {
	t.Helper()
	home := t.TempDir()
	env := append(withoutKeys(gitEnv(home)), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example",
		"GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example")
	if key != nil {
		env = append(env, signer.EnvVar+"="+key.NSec(),
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0="+testutil.Binary(t, "git-credential-nostr"),
			"GIT_CONFIG_KEY_1=credential.useHttpPath", "GIT_CONFIG_VALUE_1=true")
	}
	return helperUser{home: home, env: env}
}

// clone clones remote into a new directory of the user's home.
func (u helperUser) clone(t *testing.T, remote string) (string, string, error) {
	t.Helper()
	dir, err := os.MkdirTemp(u.home, "clone")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, u.env, u.home, "git", "clone", "-q", remote, dir)
	return dir, out, err
}

// commitPush commits file in dir and pushes HEAD to main.
func (u helperUser) commitPush(t *testing.T, dir, file string) (string, error) {
	t.Helper()
	writeFile(t, filepath.Join(dir, file), file+"\n")
	must(t, u.env, dir, "git", "add", ".")
	must(t, u.env, dir, "git", "commit", "-q", "-m", file)
	return run(t, u.env, dir, "git", "push", "origin", "HEAD:main")
}

// publishAnnouncement publishes a kind-30617 announcement of repo by key, created at
// the given time (replaceable events need strictly increasing times).
func publishAnnouncement(t *testing.T, ctx context.Context, relayURL string, key *signer.Local, at nostr.Timestamp, tags ...nostr.Tag) {
	t.Helper()
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ev := nostr.Event{Kind: nostr.KindRepositoryAnnouncement, CreatedAt: at, Tags: nostr.Tags(tags)}
	if err := key.SignEvent(ctx, &ev); err != nil {
		t.Fatal(err)
	}
	if err := conn.Publish(ctx, &ev); err != nil {
		t.Fatalf("publish announcement %v: %v", tags, err)
	}
}

// refusedPush fails the test unless out is git's report of a 403.
func refusedPush(t *testing.T, who string, out string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(out, "403") {
		t.Fatalf("%s: push not refused with 403: err=%v\n%s", who, err, out)
	}
}

// Maintainers come from the owner's kind-30617 announcement as stored by
// the real relay: a listed member pushes through git-credential-nostr, an
// unlisted member is refused, an announcement of the same d by someone
// else grants nothing, and a newer announcement that drops the maintainer
// revokes the right.
func TestGitMaintainersFromRelayAnnouncement(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, bob, carol := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, "[workspace]\nmembers = [\""+alice.PublicKey()+"\", \""+
		bob.PublicKey()+"\", \""+carol.PublicKey()+"\"]\n")
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	remote := httpURL + "/git/" + alice.NPub() + "/proj.git"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Alice creates the repository with her first push.
	au := newHelperUser(t, alice)
	adir := filepath.Join(au.home, "proj")
	must(t, au.env, au.home, "git", "init", "-q", "-b", "main", adir)
	must(t, au.env, adir, "git", "remote", "add", "origin", remote)
	if out, err := au.commitPush(t, adir, "a"); err != nil {
		t.Fatalf("owner's first push: %v\n%s", err, out)
	}

	bu, cu := newHelperUser(t, bob), newHelperUser(t, carol)
	bdir, out, err := bu.clone(t, remote)
	if err != nil {
		t.Fatalf("member clone: %v\n%s", err, out)
	}
	cdir, out, err := cu.clone(t, remote)
	if err != nil {
		t.Fatalf("member clone: %v\n%s", err, out)
	}

	// No announcement yet: members read but do not push.
	out, err = bu.commitPush(t, bdir, "b1")
	refusedPush(t, "bob without an announcement", out, err)

	// Carol announces her own "proj" listing Bob: that is carol/proj, not
	// alice/proj, and grants nothing here. It is newer than any of Alice's
	// below, so a lookup that does not pick Alice's would find it instead.
	t0 := nostr.Now() - 10
	publishAnnouncement(t, ctx, relayURL, carol, t0+5, nostr.Tag{"d", "proj"}, nostr.Tag{"maintainers", bob.PublicKey()})
	out, err = run(t, bu.env, bdir, "git", "push", "origin", "HEAD:main")
	refusedPush(t, "bob listed in carol's announcement", out, err)

	// Alice lists Bob (hex, as NIP-34 writes it): Bob pushes, Carol does not.
	publishAnnouncement(t, ctx, relayURL, alice, t0, nostr.Tag{"d", "proj"}, nostr.Tag{"maintainers", bob.PublicKey()})
	if out, err := run(t, bu.env, bdir, "git", "push", "origin", "HEAD:main"); err != nil {
		t.Fatalf("maintainer push refused: %v\n%s", err, out)
	}
	bobHead := strings.TrimSpace(must(t, bu.env, bdir, "git", "rev-parse", "HEAD"))
	out, err = cu.commitPush(t, cdir, "c1")
	refusedPush(t, "carol, a member not listed", out, err)
	if ls := must(t, au.env, adir, "git", "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(ls, bobHead) {
		t.Fatalf("main is not Bob's commit %s:\n%s", bobHead, ls)
	}

	// A newer announcement lists Carol instead of Bob: the latest one counts.
	publishAnnouncement(t, ctx, relayURL, alice, t0+1, nostr.Tag{"d", "proj"}, nostr.Tag{"maintainers", carol.NPub()})
	out, err = bu.commitPush(t, bdir, "b2")
	refusedPush(t, "bob after removal", out, err)
	must(t, cu.env, cdir, "git", "pull", "-q", "--rebase", "origin", "main")
	if out, err := run(t, cu.env, cdir, "git", "push", "origin", "HEAD:main"); err != nil {
		t.Fatalf("newly listed maintainer's push refused: %v\n%s", err, out)
	}
}

// infoRefs fetches the ref advertisement of remote as key (anonymous when
// nil) and returns the HTTP status and body.
func infoRefs(t *testing.T, remote string, key *signer.Local) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", remote+"/info/refs?service=git-upload-pack", nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != nil {
		h, err := nip98.BuildHeader(context.Background(), key, remote, "GET", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", h)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// ["t", "public"] in the owner's announcement, as stored by the real relay,
// opens a repository to non-members and anonymous clones (reading only);
// without it (no announcement, another t, or a newer announcement that
// drops it) a non-member gets the same 404 as for a repository that does
// not exist.
func TestGitPublicAnnouncementFromRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, bob, dave := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t) // dave is no member
	relayURL := startRelayWithConfig(t, "[workspace]\nmembers = [\""+alice.PublicKey()+"\", \""+bob.PublicKey()+"\"]\n")
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	base := httpURL + "/git/" + alice.NPub() + "/"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	au := newHelperUser(t, alice)
	adir := filepath.Join(au.home, "w")
	must(t, au.env, au.home, "git", "init", "-q", "-b", "main", adir)
	writeFile(t, filepath.Join(adir, "f"), "f\n")
	must(t, au.env, adir, "git", "add", ".")
	must(t, au.env, adir, "git", "commit", "-q", "-m", "f")
	for _, repo := range []string{"pub", "priv"} {
		must(t, au.env, adir, "git", "push", "-q", base+repo+".git", "main")
	}

	du, anon := newHelperUser(t, dave), newHelperUser(t, nil)
	private := func(repo, when string) {
		t.Helper()
		if _, out, err := du.clone(t, base+repo+".git"); err == nil || !strings.Contains(out, "not found") {
			t.Fatalf("%s: non-member clone of %s: err=%v\n%s", when, repo, err, out)
		}
		if _, out, err := anon.clone(t, base+repo+".git"); err == nil {
			t.Fatalf("%s: anonymous clone of %s succeeded:\n%s", when, repo, out)
		}
		code, body := infoRefs(t, base+repo+".git", dave)
		mcode, mbody := infoRefs(t, base+"missing.git", dave)
		if code != http.StatusNotFound || code != mcode || body != mbody {
			t.Fatalf("%s: non-member sees %s as %d %q, a missing repository as %d %q", when, repo, code, body, mcode, mbody)
		}
		if code, _ := infoRefs(t, base+repo+".git", nil); code != http.StatusUnauthorized {
			t.Fatalf("%s: anonymous request for %s: %d, want 401", when, repo, code)
		}
	}
	private("pub", "no announcement")

	t0 := nostr.Now() - 10
	publishAnnouncement(t, ctx, relayURL, alice, t0, nostr.Tag{"d", "pub"}, nostr.Tag{"t", "public"})
	publishAnnouncement(t, ctx, relayURL, alice, t0, nostr.Tag{"d", "priv"}, nostr.Tag{"t", "personal-fork"})
	// Bob announces his own public "priv" (newer than Alice's): it is not Alice's.
	publishAnnouncement(t, ctx, relayURL, bob, t0+5, nostr.Tag{"d", "priv"}, nostr.Tag{"t", "public"})
	private("priv", "announced without public")

	for who, u := range map[string]helperUser{"non-member": du, "anonymous": anon} {
		dir, out, err := u.clone(t, base+"pub.git")
		if err != nil {
			t.Fatalf("%s clone of a public repository: %v\n%s", who, err, out)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "f\n" {
			t.Fatalf("%s clone: f = %q, %v", who, b, err)
		}
		if who == "non-member" {
			out, err := u.commitPush(t, dir, "d")
			refusedPush(t, "non-member push to a public repository", out, err)
		}
	}

	// A newer announcement without the tag makes it private again.
	publishAnnouncement(t, ctx, relayURL, alice, t0+1, nostr.Tag{"d", "pub"})
	private("pub", "public dropped")
}
