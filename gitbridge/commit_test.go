package gitbridge

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// signedObject is a commit with a signature, a signature header of the
// other hash algorithm (which git also drops from the payload), a header
// with a continuation line that must stay, and a message line that looks
// like a header.
const signedObject = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
	"author A <a@x> 1700000000 +0000\n" +
	"committer A <a@x> 1700000000 +0000\n" +
	"gpgsig-sha256 -----BEGIN PGP SIGNATURE-----\n" +
	" other algorithm\n" +
	" -----END PGP SIGNATURE-----\n" +
	"gpgsig -----BEGIN PGP SIGNATURE-----\n" +
	" \n" +
	" c2lnbmF0dXJl\n" +
	" -----END PGP SIGNATURE-----\n" +
	"x-custom first\n" +
	" continued\n" +
	"\n" +
	"subject\n\ngpgsig in the message stays\n"

// SplitSignedCommit must hand a verifier the very bytes git hands gpg:
// git verify-commit runs gpg.program with the payload on stdin and the
// signature in a file, so a fake gpg captures both.
func TestSplitSignedCommitMatchesGit(t *testing.T) {
	dir := t.TempDir()
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "OUT="+dir)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil && args[0] != "-c" {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "init", "-q", "--bare", ".")
	id := run(signedObject, "hash-object", "--literally", "-t", "commit", "-w", "--stdin")
	gpg := filepath.Join(dir, "fake-gpg")
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --verify ] && cp \"$2\" \"$OUT/sig\"; shift; done\n" +
		"cat > \"$OUT/payload\"\nexit 1\n"
	if err := os.WriteFile(gpg, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run("", "-c", "gpg.program="+gpg, "verify-commit", id)
	wantPayload, err1 := os.ReadFile(filepath.Join(dir, "payload"))
	wantSig, err2 := os.ReadFile(filepath.Join(dir, "sig"))
	if err1 != nil || err2 != nil {
		t.Fatalf("fake gpg captured nothing: %v %v", err1, err2)
	}
	payload, sig, ok := SplitSignedCommit([]byte(signedObject))
	if !ok || !bytes.Equal(payload, wantPayload) || !bytes.Equal(sig, wantSig) {
		t.Fatalf("ok=%v\npayload:\n%q\nwant:\n%q\nsig:\n%q\nwant:\n%q", ok, payload, wantPayload, sig, wantSig)
	}
}

func TestSplitSignedCommitUnsigned(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\n\ngpgsig not a header\n"
	payload, sig, ok := SplitSignedCommit([]byte(raw))
	if ok || sig != nil || string(payload) != raw {
		t.Fatalf("ok=%v sig=%q payload=%q", ok, sig, payload)
	}
	// Only the other algorithm's signature: unsigned here, and dropped.
	raw2 := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ngpgsig-sha256 x\n y\n\nmsg\n"
	payload, _, ok = SplitSignedCommit([]byte(raw2))
	if ok || string(payload) != "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nmsg\n" {
		t.Fatalf("ok=%v payload=%q", ok, payload)
	}
}
