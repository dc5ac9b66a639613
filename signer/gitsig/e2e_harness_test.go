package gitsig

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitRepo runs the real git in a scratch repository, isolated from the
// user's configuration: HOME is a temp dir, global and system config off.
type gitRepo struct {
	t   *testing.T
	dir string
	bin string // the built git-sign-nostr
	env []string
}

// newGitRepo builds git-sign-nostr, creates a repository and configures it
// to sign with that binary. Settings are repository-local; nothing global is
// touched.
func newGitRepo(t *testing.T, keyFile, signingKey string) *gitRepo {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds a binary and runs git")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "git-sign-nostr")
	build := exec.Command("go", "build", "-o", bin, "toolbus/cmd/git-sign-nostr")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	g := &gitRepo{t: t, dir: filepath.Join(tmp, "repo"), bin: bin, env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "LC_ALL=C", "TMPDIR=" + tmp,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	}}
	if err := os.Mkdir(g.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	g.must("init", "-q", ".")
	for k, v := range map[string]string{
		"user.name": "E2E Signer", "user.email": "e2e@toolbus.invalid",
		"gpg.format": "x509", "gpg.x509.program": bin,
		"user.signingkey": signingKey, "nostr.keyfile": keyFile,
		"commit.gpgSign": "true", "tag.gpgSign": "true",
	} {
		g.must("config", k, v)
	}
	return g
}

// run runs git with extra environment entries and returns its raw output.
func (g *gitRepo) run(stdin string, extraEnv []string, args ...string) (string, string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(append([]string{}, g.env...), extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// signDirect runs git-sign-nostr in the repository exactly as git does to
// sign, for the diagnostics git 2.39 swallows: on failure it prints only
// "gpg failed to sign the data", not the program's stderr.
func (g *gitRepo) signDirect(extraEnv []string, user string) (string, string, error) {
	cmd := exec.Command(g.bin, "--status-fd=2", "-bsau", user)
	cmd.Dir = g.dir
	cmd.Env = append(append([]string{}, g.env...), extraEnv...)
	cmd.Stdin = strings.NewReader("tree 4b825dc642cb6eb9a060e54bf899d69f7cb46101\n\nmsg\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// configEnv overrides git settings for one command and its children (the
// signing program's own `git config` included) through the environment.
func configEnv(kv ...string) []string {
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i/2, kv[i]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i/2, kv[i+1]))
	}
	return env
}

// must runs git and fails the test if it fails; it returns stdout.
func (g *gitRepo) must(args ...string) string {
	g.t.Helper()
	out, errb, err := g.run("", nil, args...)
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb)
	}
	return out
}

// sigStatus is what git makes of rev's signature: %G? (G good and trusted,
// U good with undefined trust, B bad, E cannot check), %GK key, %GS signer,
// %GF fingerprint, %GP primary fingerprint, %GT trust level.
func (g *gitRepo) sigStatus(rev string, cfg ...string) string {
	return g.format(rev, "%G? %GK %GS %GF %GP %GT", cfg...)
}

// sigCode is %G? and %GK alone. %GT must not be asked of a bad signature:
// git 2.39 aborts ("BUG: invalid trust level requested -1") when the status
// has no TRUST_ line, as after gpg's own BADSIG or ERRSIG.
func (g *gitRepo) sigCode(rev string) string { return g.format(rev, "%G? %GK") }

func (g *gitRepo) format(rev, format string, cfg ...string) string {
	args := append(cfg, "log", "-1", "--format="+format, rev)
	return strings.TrimSpace(g.must(args...))
}

// rewriteCommit stores a copy of commit rev with edit applied to its raw
// object, points refs/heads/tampered at it and returns its id. The edit
// bypasses git entirely, as an attacker rewriting history would.
func (g *gitRepo) rewriteCommit(rev string, edit func(string) string) string {
	g.t.Helper()
	raw := g.must("cat-file", "commit", rev)
	changed := edit(raw)
	if changed == raw {
		g.t.Fatal("rewriteCommit: edit changed nothing")
	}
	out, errb, err := g.run(changed, nil, "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		g.t.Fatalf("hash-object: %v\n%s", err, errb)
	}
	id := strings.TrimSpace(out)
	g.must("update-ref", "refs/heads/tampered", id)
	return id
}

// editEnvelope rewrites the base64 line of the gpgsig header of a raw commit
// through edit, which gets and returns the decoded JSON (or, for a malformed
// result, returns a replacement line prefixed with "raw:").
func editEnvelope(t *testing.T, raw string, edit func(string) string) string {
	lines := strings.Split(raw, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "gpgsig ") {
			continue
		}
		js, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[i+1], " "))
		if err != nil {
			t.Fatal(err)
		}
		next := edit(string(js))
		if r, ok := strings.CutPrefix(next, "raw:"); ok {
			lines[i+1] = " " + r
		} else {
			lines[i+1] = " " + base64.StdEncoding.EncodeToString([]byte(next))
		}
		return strings.Join(lines, "\n")
	}
	t.Fatal("commit has no gpgsig header")
	return ""
}

// writeKey writes a key file of the given mode.
func writeKey(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nostr.key")
	if err := os.WriteFile(path, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}
