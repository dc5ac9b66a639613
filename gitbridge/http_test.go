package gitbridge_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
	"toolbus/signer"
)

// token signs a kind-27235 event for u at time at, as base64 JSON.
func token(t *testing.T, key *signer.Local, u string, at time.Time, kind int) string {
	t.Helper()
	ev := nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at.Unix()),
		Tags: nostr.Tags{{"u", u}, {"method", "GET"}}}
	if err := key.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ev)
	return base64.StdEncoding.EncodeToString(raw)
}

// get sends GET path with an optional Authorization header value.
func (h *harness) get(path, auth string) (*http.Response, string) {
	h.t.Helper()
	return h.do(http.MethodGet, path, auth)
}

// do sends method path (with a flush-packet body for POST) and an optional
// Authorization header value.
func (h *harness) do(method, path, auth string) (*http.Response, string) {
	h.t.Helper()
	var reqBody io.Reader
	if method == http.MethodPost {
		reqBody = strings.NewReader("0000")
	}
	req, err := http.NewRequest(method, h.srv.URL+path, reqBody)
	if err != nil {
		h.t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func basic(tok string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("nostr:"+tok))
}

// Tokens: both header forms work; expired, future, misdirected, forged or
// wrong-kind tokens get 401 with both schemes offered.
func TestTokens(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	h.seed(h.owner, "other")
	path := "/git/" + h.owner.NPub() + "/app.git/info/refs?service=git-upload-pack"
	now := time.Now()
	good := token(t, h.member, h.url(h.owner, "app"), now, 27235)
	for _, auth := range []string{"Nostr " + good, basic(good)} {
		if res, body := h.get(path, auth); res.StatusCode != 200 || !strings.Contains(body, "refs/heads/main") {
			t.Fatalf("valid token (%.6s): %d %s", auth, res.StatusCode, body)
		}
	}
	forged := []byte(good)
	forged[len(forged)/2] ^= 1
	bad := map[string]string{
		"expired":        token(t, h.member, h.url(h.owner, "app"), now.Add(-2*time.Minute), 27235),
		"future":         token(t, h.member, h.url(h.owner, "app"), now.Add(2*time.Minute), 27235),
		"other repo":     token(t, h.member, h.url(h.owner, "other"), now, 27235),
		"other spelling": token(t, h.member, h.srv.URL+"/git/"+h.owner.PublicKey()+"/app.git", now, 27235),
		"sub path":       token(t, h.member, h.url(h.owner, "app")+"/info/refs", now, 27235),
		"wrong kind":     token(t, h.member, h.url(h.owner, "app"), now, 1),
		"bad signature":  string(forged),
		"garbage":        "not-base64!",
	}
	for name, tok := range bad {
		for _, auth := range []string{"Nostr " + tok, basic(tok)} {
			res, _ := h.get(path, auth)
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: status %d, want 401", name, res.StatusCode)
			}
			if got := strings.Join(res.Header.Values("WWW-Authenticate"), ", "); !strings.Contains(got, "Nostr") || !strings.Contains(got, "Basic") {
				t.Errorf("%s: WWW-Authenticate %q should offer Nostr and Basic", name, got)
			}
		}
	}
	if res, _ := h.get(path, ""); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous: status %d, want 401", res.StatusCode)
	}
}

// The u tag is checked against PublicURL, never against the request's Host
// or forwarded headers: a token for http://evil.example/… is refused even
// when Host and X-Forwarded-Host say evil.example, and a token for the
// public URL still works whatever those headers say.
func TestTokenURLIgnoresHostHeaders(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	root := "/git/" + h.owner.NPub() + "/app.git"
	send := func(tail, auth string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, h.srv.URL+root+tail, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example"
		req.Header.Set("X-Forwarded-Host", "evil.example")
		req.Header.Set("X-Forwarded-Proto", "http")
		req.Header.Set("Forwarded", "host=evil.example;proto=http")
		req.Header.Set("Authorization", auth)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	now := time.Now()
	for _, tail := range []string{"/info/refs?service=git-upload-pack", "/info/refs?service=git-receive-pack"} {
		evil := token(t, h.owner, "http://evil.example"+root, now, 27235)
		for _, auth := range []string{"Nostr " + evil, basic(evil)} {
			if code := send(tail, auth); code != http.StatusUnauthorized {
				t.Errorf("%s with a token for evil.example (%.6s): status %d, want 401", tail, auth, code)
			}
		}
		good := token(t, h.owner, h.url(h.owner, "app"), now, 27235)
		if code := send(tail, "Nostr "+good); code != http.StatusOK {
			t.Errorf("%s with a token for the public URL: status %d, want 200", tail, code)
		}
	}
}

// Every malformed or escaping repository path is a 404, before and whatever
// the credentials; nothing is created on disk. Bad names are tried on every
// real endpoint (both advertisements, both POSTs) with the owner's valid
// token for exactly that root URL, which would create the repository if the
// name were not checked; malformed paths are tried as they come.
func TestBadRepoNames(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	npub := h.owner.NPub()
	// Repository segments that reach the name check: no percent-encoding,
	// no slash, ending in ".git".
	badRepos := []string{
		".git",        // empty name
		"..git",       // "."
		"...git",      // ".."
		"a..b.git",    // ".." inside
		".app.git",    // dot-file
		"app.git.git", // ".git" suffix
		"app.GIT.git", // ".git" suffix, any case
		"-u.git",      // an option to git
		"--upload-pack=x.git",
		"_x.git",
		"a:b.git",
		"a=b.git",
		"a~1.git",
		strings.Repeat("a", gitbridge.MaxRepoNameLen+1) + ".git",
	}
	endpoints := []struct{ method, tail string }{
		{http.MethodGet, "/info/refs?service=git-upload-pack"},
		{http.MethodGet, "/info/refs?service=git-receive-pack"},
		{http.MethodPost, "/git-upload-pack"},
		{http.MethodPost, "/git-receive-pack"},
	}
	for _, repo := range badRepos {
		root := "/git/" + npub + "/" + repo
		tok := token(t, h.owner, h.srv.URL+root, time.Now(), 27235)
		for _, ep := range endpoints {
			for _, auth := range []string{"", "Nostr " + tok, basic(tok)} {
				if res, body := h.do(ep.method, root+ep.tail, auth); res.StatusCode != http.StatusNotFound {
					t.Errorf("%s %q (auth %.5s): status %d %q, want 404", ep.method, root+ep.tail, auth, res.StatusCode, body)
				}
			}
		}
	}
	// Paths that are malformed before the name is looked at.
	paths := []string{
		"/git/" + npub + "/../app.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/%2e%2e.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/%2E%2E/app.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/app/info/refs?service=git-receive-pack",
		"/git/" + npub + "//etc/passwd.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/a%2fb.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/a%00b.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/a%0ab.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/a b.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/é.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/app.git/../app.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/app.git/objects/info/packs",
		"/git/" + npub + "/app.git/HEAD",
		"/git/" + npub + "/app.git/info/refs",
		"/git/" + npub + "/app.git/info/refs?service=git-foo",
		"/git/..%2f/app.git/info/refs?service=git-receive-pack",
		"/git/npub1xyz/app.git/info/refs?service=git-receive-pack",
		"/git/" + strings.ToUpper(npub) + "x/app.git/info/refs?service=git-receive-pack",
		"/git/" + npub + "/app.git/info/refs%3fservice=git-upload-pack",
	}
	for _, p := range paths {
		tok := token(t, h.owner, h.srv.URL+p, time.Now(), 27235)
		for _, auth := range []string{"", "Nostr " + tok} {
			if res, body := h.get(p, auth); res.StatusCode != http.StatusNotFound {
				t.Errorf("%q: status %d %q, want 404", p, res.StatusCode, body)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(h.data, "git", h.owner.PublicKey()))
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("owner dir holds %q, want only app.git", names)
	}
}

// Symlinks inside data_dir that lead out of it are refused, for the
// repository directory and for the owner directory alike.
func TestSymlinkEscape(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	outside := t.TempDir()
	if err := os.Symlink(h.serverRepo(h.owner, "app"), filepath.Join(outside, "x.git")); err != nil {
		t.Fatal(err)
	}
	// The repository link points at a real repository: only the link is wrong.
	link := filepath.Join(h.data, "git", h.owner.PublicKey(), "evil.git")
	if err := os.Symlink(h.serverRepo(h.owner, "app"), link); err != nil {
		t.Fatal(err)
	}
	ownerLink := filepath.Join(h.data, "git", h.member.PublicKey())
	if err := os.Symlink(outside, ownerLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		owner *signer.Local
		repo  string
	}{{h.owner, "evil"}, {h.member, "x"}} {
		p := "/git/" + c.owner.NPub() + "/" + c.repo + ".git/info/refs?service=git-upload-pack"
		tok := token(t, c.owner, h.url(c.owner, c.repo), time.Now(), 27235)
		if res, body := h.get(p, "Nostr "+tok); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d %q, want 404", p, res.StatusCode, body)
		}
	}
	// A push by the owner must not create a repository through the link.
	work := t.TempDir()
	h.mustGit(nil, work, "init", "-q")
	h.commit(work, "a", "a\n")
	if out, err := h.git(h.member, work, "push", h.url(h.member, "y"), "main"); err == nil {
		t.Fatalf("push through a symlinked owner dir succeeded:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "y.git")); err == nil {
		t.Fatal("repository created outside data_dir")
	}
}

// A gzip-compressed protocol-v2 request reaches git with GIT_PROTOCOL set.
func TestGzipProtocolV2(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	io.WriteString(zw, "0014command=ls-refs\n0001000bsymrefs0000")
	zw.Close()
	req, _ := http.NewRequest(http.MethodPost, h.url(h.owner, "app")+"/git-upload-pack", &body)
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Git-Protocol", "version=2")
	req.Header.Set("Authorization", "Nostr "+token(t, h.member, h.url(h.owner, "app"), time.Now(), 27235))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(out), "refs/heads/main symref-target") &&
		!strings.Contains(string(out), " refs/heads/main") {
		t.Fatalf("status %d, body %q", res.StatusCode, out)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/x-git-upload-pack-result" {
		t.Errorf("Content-Type %q", ct)
	}
}

// Behind a proxy that strips a path prefix, tokens name the public URL
// (with the prefix) and still verify.
func TestPublicURLWithPrefix(t *testing.T) {
	h := newHarness(t, func(o *gitbridge.Options) { o.PublicURL += "/tb" })
	h.seed(h.owner, "app")
	if _, out, err := h.clone(h.member, h.url(h.owner, "app")); err != nil {
		t.Fatalf("clone through the prefix: %v\n%s", err, out)
	}
	unprefixed := h.srv.URL + "/git/" + h.owner.NPub() + "/app.git"
	tok := token(t, h.member, unprefixed, time.Now(), 27235)
	if res, _ := h.get("/tb/git/"+h.owner.NPub()+"/app.git/info/refs?service=git-upload-pack", "Nostr "+tok); res.StatusCode != 401 {
		t.Fatalf("token without the prefix: status %d, want 401", res.StatusCode)
	}
}
