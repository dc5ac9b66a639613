package gitbridge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
	"toolbus/signer"
)

// Binaries built once per test process: the credential helper and a
// stand-in for `toolbus git hook`. Built here rather than with
// testutil.Binary so these tests build only what they run.
var bins struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

func buildBins(t testing.TB) (cred, hook string) {
	t.Helper()
	bins.once.Do(func() {
		if bins.dir, bins.err = os.MkdirTemp("", "gitbridge-bin-"); bins.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bins.dir+string(filepath.Separator),
			"toolbus/cmd/git-credential-nostr", "toolbus/gitbridge/internal/hooktest")
		bins.out, bins.err = cmd.CombinedOutput()
	})
	if bins.err != nil {
		t.Fatalf("build test binaries: %v\n%s", bins.err, bins.out)
	}
	return filepath.Join(bins.dir, "git-credential-nostr"), filepath.Join(bins.dir, "hooktest")
}

// harness is a Bridge behind an httptest server with four identities:
// owner and member are workspace members, maint is a member the owner may
// name as maintainer, outsider is not a member.
type harness struct {
	t                              *testing.T
	b                              *gitbridge.Bridge
	srv                            *httptest.Server
	data                           string
	relayKey                       *signer.Local
	owner, member, maint, outsider *signer.Local
	cred                           string
	home                           string
	base                           string // PublicURL
	handler                        http.Handler

	mu      sync.Mutex
	members map[string]bool
	anns    map[string]*gitbridge.RepoAnnouncement
	states  []*nostr.Event
	pushes  []gitbridge.Push
}

func newHarness(t *testing.T, mutate func(*gitbridge.Options)) *harness {
	t.Helper()
	cred, hook := buildBins(t)
	h := &harness{t: t, data: t.TempDir(), cred: cred, home: t.TempDir(),
		relayKey: newKey(t), owner: newKey(t), member: newKey(t), maint: newKey(t), outsider: newKey(t),
		anns: map[string]*gitbridge.RepoAnnouncement{}}
	h.members = map[string]bool{h.owner.PublicKey(): true, h.member.PublicKey(): true, h.maint.PublicKey(): true}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }))
	t.Cleanup(h.srv.Close)
	opts := gitbridge.Options{
		DataDir: h.data, PublicURL: h.srv.URL, HookBinary: hook, Signer: h.relayKey,
		IsMember:     h.isMember,
		Announcement: h.announcement,
		Publish:      h.publish,
		OnPush:       func(_ context.Context, p gitbridge.Push) { h.mu.Lock(); h.pushes = append(h.pushes, p); h.mu.Unlock() },
	}
	if mutate != nil {
		mutate(&opts)
	}
	b, err := gitbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	h.b = b
	// A PublicURL with a path stands for a proxy that strips that path.
	h.base = opts.PublicURL
	h.handler = http.StripPrefix(strings.TrimPrefix(opts.PublicURL, h.srv.URL), b)
	return h
}

func newKey(t testing.TB) *signer.Local {
	t.Helper()
	k, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (h *harness) isMember(pk string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.members[pk]
}

func (h *harness) announcement(_ context.Context, owner, repo string) (*gitbridge.RepoAnnouncement, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.anns[owner+"/"+repo], nil
}

func (h *harness) announce(owner *signer.Local, repo string, a *gitbridge.RepoAnnouncement) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.anns[owner.PublicKey()+"/"+repo] = a
}

func (h *harness) publish(_ context.Context, ev *nostr.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.states = append(h.states, ev)
	return nil
}

// lastState is the most recent state event published.
func (h *harness) lastState() *nostr.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.states) == 0 {
		h.t.Fatal("no state event published")
	}
	return h.states[len(h.states)-1]
}

// url is the repository URL with the owner as npub.
func (h *harness) url(owner *signer.Local, repo string) string {
	return h.base + "/git/" + owner.NPub() + "/" + repo + ".git"
}

// git runs the real git as a client signing with key (nil: no key at all),
// through the credential helper. It returns combined output.
func (h *harness) git(key *signer.Local, dir string, args ...string) (string, error) {
	h.t.Helper()
	cfg := []string{"-c", "credential.helper=", "-c", "credential.helper=" + h.cred,
		"-c", "credential.useHttpPath=true", "-c", "user.name=Test", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "protocol.version=2"}
	cmd := exec.Command("git", append(cfg, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}
	if key != nil {
		cmd.Env = append(cmd.Env, signer.EnvVar+"="+key.NSec())
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustGit is git that fails the test on error.
func (h *harness) mustGit(key *signer.Local, dir string, args ...string) string {
	h.t.Helper()
	out, err := h.git(key, dir, args...)
	if err != nil {
		h.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// commit writes file=content in the work tree dir and commits it.
func (h *harness) commit(dir, file, content string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.mustGit(nil, dir, "add", file)
	h.mustGit(nil, dir, "commit", "-q", "-m", "change "+file)
}

// seed creates owner's repo with one commit on main and returns the work tree.
func (h *harness) seed(owner *signer.Local, repo string) string {
	h.t.Helper()
	dir := h.t.TempDir()
	h.mustGit(nil, dir, "init", "-q")
	h.commit(dir, "README", "hello\n")
	h.mustGit(owner, dir, "push", "-q", h.url(owner, repo), "main")
	return dir
}

// clone clones owner's repo as key into a new directory.
func (h *harness) clone(key *signer.Local, url string) (string, string, error) {
	h.t.Helper()
	dir := filepath.Join(h.t.TempDir(), "w")
	out, err := h.git(key, filepath.Dir(dir), "clone", "-q", url, dir)
	return dir, out, err
}

// serverRepo is the bare repository's directory on the server.
func (h *harness) serverRepo(owner *signer.Local, repo string) string {
	return filepath.Join(h.data, "git", owner.PublicKey(), repo+".git")
}
