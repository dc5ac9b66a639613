package gitcred

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/nip98"
	"toolbus/signer"
)

// useKeyFile points `git config nostr.keyfile` at a new key file with the
// given mode, through a private global config, and returns the key. The
// key is never put in the environment: signer.TakeEnv would keep it for
// the rest of the test process.
func useKeyFile(t *testing.T, mode os.FileMode) *signer.Local {
	t.Helper()
	t.Setenv(signer.EnvVar, "")
	t.Chdir(t.TempDir()) // outside any repository
	dir := t.TempDir()
	key, _ := signer.Generate()
	path := filepath.Join(dir, "key")
	if err := signer.WriteKeyFile(path, key); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[nostr]\n\tkeyfile = "+path+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return key
}

func run(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(input), &out, &errb)
	return code, out.String(), errb.String()
}

// fields parses the helper's key=value answer.
func fields(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

// checkToken verifies tok as the bridge would for a request below root.
func checkToken(t *testing.T, tok, root string, key *signer.Local) {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(tok)
	var ev nostr.Event
	if err := json.Unmarshal(raw, &ev); err != nil || ev.Tags.Find("u")[1] != root {
		t.Fatalf("token %s: %v", raw, err)
	}
	r := httptest.NewRequest("POST", root+"/git-receive-pack", nil)
	r.Header.Set("Authorization", "Nostr "+tok)
	res, err := nip98.Verify(r, nip98.Options{ExpectedURL: root, URLMode: nip98.MatchPrefix, SkipMethod: true})
	if err != nil || res.PubKey != key.PublicKey() {
		t.Fatalf("verify: %v", err)
	}
}

const sampleRequest = "protocol=https\nhost=relay.example:8443\npath=git/npub1abc/app.git\n"

func TestGetAuthtype(t *testing.T) {
	key := useKeyFile(t, 0o600)
	code, out, errs := run(t, "capability[]=authtype\ncapability[]=state\n"+sampleRequest+"\n", "get")
	f := fields(out)
	if code != 0 || f["capability[]"] != "authtype" || f["authtype"] != "Nostr" || f["ephemeral"] != "true" || f["password"] != "" {
		t.Fatalf("code %d, out %q, stderr %q", code, out, errs)
	}
	if !strings.HasPrefix(out, "capability[]=authtype\n") {
		t.Error("the capability must come first")
	}
	checkToken(t, f["credential"], "https://relay.example:8443/git/npub1abc/app.git", key)
}

func TestGetBasic(t *testing.T) {
	key := useKeyFile(t, 0o600)
	code, out, errs := run(t, sampleRequest+"wwwauth[]=Basic realm=\"toolbus\"\n", "get")
	f := fields(out)
	if code != 0 || f["username"] != "nostr" || f["password_expiry_utc"] == "" || f["credential"] != "" {
		t.Fatalf("code %d, out %q, stderr %q", code, out, errs)
	}
	checkToken(t, f["password"], "https://relay.example:8443/git/npub1abc/app.git", key)
}

// Failures write nothing to stdout and say what to do on stderr.
func TestGetFailures(t *testing.T) {
	useKeyFile(t, 0o600)
	cases := map[string]string{
		"protocol=https\nhost=h\n":         "credential.useHttpPath true",
		"protocol=ssh\nhost=h\npath=r.git": "only http and https",
		"protocol=https\npath=r.git\n":     "host",
		"garbage\n":                        "malformed",
	}
	for in, want := range cases {
		code, out, errs := run(t, in, "get")
		if code == 0 || out != "" || !strings.Contains(errs, want) {
			t.Errorf("%q: code %d, stdout %q, stderr %q", in, code, out, errs)
		}
	}
}

func TestKeyFileMode(t *testing.T) {
	useKeyFile(t, 0o644)
	code, out, errs := run(t, sampleRequest, "get")
	if code == 0 || out != "" || !strings.Contains(errs, "chmod 600") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestStoreEraseUsage(t *testing.T) {
	for _, op := range []string{"store", "erase", "future-op"} {
		if code, out, errs := run(t, sampleRequest+"password=x\n", op); code != 0 || out != "" || errs != "" {
			t.Errorf("%s: code %d, out %q, err %q", op, code, out, errs)
		}
	}
	if code, out, _ := run(t, "", "get", "extra"); code != 2 || out != "" {
		t.Errorf("usage: code %d, out %q", code, out)
	}
}

func TestRepoRoot(t *testing.T) {
	cases := map[string]string{
		"git/npub1x/app.git":                "git/npub1x/app.git",
		"/git/npub1x/app.git/":              "git/npub1x/app.git",
		"git/npub1x/app.git/info/refs":      "git/npub1x/app.git",
		"prefix/git/npub1x/app.git/x/y.git": "prefix/git/npub1x/app.git",
		"git/npub1x/app":                    "git/npub1x/app",
	}
	for in, want := range cases {
		if got := repoRoot(in); got != want {
			t.Errorf("repoRoot(%q) = %q, want %q", in, got, want)
		}
	}
}
