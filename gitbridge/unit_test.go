package gitbridge

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

func TestValidRepoName(t *testing.T) {
	good := []string{"a", "app", "My-Repo_1.2", "x.y", strings.Repeat("a", MaxRepoNameLen)}
	bad := []string{"", ".", "..", "...", "a..b", ".hidden", "-opt", "_x", "a/b", `a\b`, "/etc",
		"a.git", "a.GIT", "a b", "a\x00b", "a\nb", "a\tb", "a\x7fb", "é", "a%2e", "a:b",
		strings.Repeat("a", MaxRepoNameLen+1)}
	for _, n := range good {
		if !ValidRepoName(n) {
			t.Errorf("ValidRepoName(%q) = false", n)
		}
	}
	for _, n := range bad {
		if ValidRepoName(n) {
			t.Errorf("ValidRepoName(%q) = true", n)
		}
	}
}

func TestParseRoute(t *testing.T) {
	k, _ := signer.Generate()
	npub, hexKey := k.NPub(), k.PublicKey()
	cases := []struct {
		method, target string
		ok             bool
		want           route
	}{
		{"GET", "/git/" + npub + "/r.git/info/refs?service=git-upload-pack", true,
			route{ownerSeg: npub, owner: hexKey, name: "r", service: uploadPack, advertise: true}},
		{"GET", "/git/" + hexKey + "/r.git/info/refs?service=git-receive-pack", true,
			route{ownerSeg: hexKey, owner: hexKey, name: "r", service: receivePack, advertise: true}},
		{"POST", "/git/" + npub + "/r.git/git-receive-pack", true,
			route{ownerSeg: npub, owner: hexKey, name: "r", service: receivePack}},
		{"POST", "/git/" + npub + "/r.git/info/refs?service=git-upload-pack", false, route{}},
		{"GET", "/git/" + npub + "/r.git/git-upload-pack", false, route{}},
		{"GET", "/git/" + npub + "/r.git/info/refs", false, route{}},
		{"GET", "/git/" + npub + "/r.git/info/refs/?service=git-upload-pack", false, route{}},
		{"GET", "/git/%20" + hexKey + "/r.git/info/refs?service=git-upload-pack", false, route{}},
		{"GET", "/other/" + npub + "/r.git/info/refs?service=git-upload-pack", false, route{}},
	}
	for _, c := range cases {
		got, ok := parseRoute(httptest.NewRequest(c.method, c.target, nil))
		if ok != c.ok || got != c.want {
			t.Errorf("%s %s = %+v, %v; want %+v, %v", c.method, c.target, got, ok, c.want, c.ok)
		}
	}
}

func TestAccessFor(t *testing.T) {
	members := map[string]bool{"owner": true, "maint": true, "member": true}
	isMember := func(pk string) bool { return members[pk] }
	ann := &RepoAnnouncement{Maintainers: []string{"maint", "stranger"}}
	pub := &RepoAnnouncement{Public: true}
	cases := []struct {
		pk   string
		ann  *RepoAnnouncement
		want Access
	}{
		{"owner", nil, WriteAccess},
		{"maint", ann, WriteAccess},
		{"maint", nil, ReadAccess},
		{"stranger", ann, NoAccess}, // a maintainer must also be a member
		{"member", ann, ReadAccess},
		{"", nil, NoAccess},
		{"", pub, ReadAccess},
		{"stranger", pub, ReadAccess},
	}
	for _, c := range cases {
		if got := accessFor(c.pk, "owner", c.ann, isMember); got != c.want {
			t.Errorf("accessFor(%q, %+v) = %v, want %v", c.pk, c.ann, got, c.want)
		}
	}
}

func TestParseAnnouncement(t *testing.T) {
	owner, _ := signer.Generate()
	maint, _ := signer.Generate()
	ev := &nostr.Event{Kind: 30617, PubKey: owner.PublicKey(), Tags: nostr.Tags{
		{"d", "app"}, {"maintainers", maint.NPub(), "garbage", maint.PublicKey()},
		{"t", "public"}, {"h", "chan1"}, {"h", "chan2"},
	}}
	a, err := ParseAnnouncement(ev, owner.PublicKey(), "app")
	if err != nil || !a.Public || a.Channel != "chan1" || len(a.Maintainers) != 1 || a.Maintainers[0] != maint.PublicKey() {
		t.Fatalf("got %+v, %v", a, err)
	}
	if _, err := ParseAnnouncement(ev, owner.PublicKey(), "other"); err == nil {
		t.Error("announcement of another repository accepted")
	}
	if _, err := ParseAnnouncement(ev, maint.PublicKey(), "app"); err == nil {
		t.Error("announcement by another author accepted")
	}
}

func TestPickHEAD(t *testing.T) {
	refs := []ref{{name: "refs/heads/a"}, {name: "refs/heads/master"}, {name: "refs/tags/v1"}}
	cases := map[string]string{
		"refs/heads/a":    "refs/heads/a",
		"refs/heads/main": "refs/heads/master",
		"":                "refs/heads/master",
	}
	for target, want := range cases {
		if got := pickHEAD(refs, target); got != want {
			t.Errorf("pickHEAD(%q) = %q, want %q", target, got, want)
		}
	}
	if got := pickHEAD(refs[:1], "refs/heads/main"); got != "refs/heads/a" {
		t.Errorf("first branch: got %q", got)
	}
	if got := pickHEAD([]ref{{name: "refs/tags/v1"}}, "refs/heads/main"); got != "" {
		t.Errorf("no branches: got %q", got)
	}
}

func TestProtocolHeader(t *testing.T) {
	if protocolEnv("version=2") == nil || protocolEnv("version=2\nX=1") != nil || protocolEnv("a b") != nil {
		t.Error("protocolEnv filter")
	}
	if !protocolV2("version=1:version=2") || protocolV2("version=1") || protocolV2("") {
		t.Error("protocolV2")
	}
}

// Exactly MaxRequestBytes passes; one more byte fails and is remembered.
func TestLimitedBody(t *testing.T) {
	for _, n := range []int{10, 11} {
		l := &limitedBody{r: bytes.NewReader(make([]byte, n)), left: 10}
		got, err := io.ReadAll(l)
		if n == 10 && (err != nil || len(got) != 10 || l.tooLarge) {
			t.Errorf("n=10: %d bytes, %v, tooLarge=%v", len(got), err, l.tooLarge)
		}
		if n == 11 && (!errors.Is(err, errTooLarge) || !l.tooLarge) {
			t.Errorf("n=11: %v, tooLarge=%v", err, l.tooLarge)
		}
	}
}

// A hook run outside a push the bridge started refuses, and says why.
func TestRunHookWithoutBridge(t *testing.T) {
	var stderr bytes.Buffer
	env := []string{envHookURL + "=http://example.com/hook", envHookToken + "=x"}
	if code := RunHook("pre-receive", strings.NewReader(""), io.Discard, &stderr, env); code == 0 {
		t.Fatal("hook accepted without a bridge")
	}
	if !strings.Contains(stderr.String(), "not started by the toolbus git bridge") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

func TestQuarantineEnv(t *testing.T) {
	if _, err := quarantineEnv("/d/r.git", "/d/r.git/./objects/tmp_objdir-incoming-x"); err != nil {
		t.Errorf("git's own quarantine path refused: %v", err)
	}
	for _, q := range []string{"/d/r.git/objects", "/d/other.git/objects/tmp", "relative/objects/x",
		"/d/r.git/objects/../../x/objects/y", "/d/r.git/objects/a/b"} {
		if _, err := quarantineEnv("/d/r.git", q); err == nil {
			t.Errorf("quarantine %q accepted", q)
		}
	}
}

// The hook script must exec the binary whatever its path contains.
func TestHookScriptQuoting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `it's a "dir" $HOME`)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeHookScripts(dir, bin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(dir, "pre-receive")).CombinedOutput()
	if err != nil || string(out) != "git hook pre-receive\n" {
		t.Fatalf("hook ran %q, %v", out, err)
	}
}
