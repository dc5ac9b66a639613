package gitsig

import (
	"os"
	"strings"
	"testing"

	"toolbus/signer"
)

// TestGitEndToEnd drives stock git (2.39 here) through gpg.format=x509 and
// gpg.x509.program=git-sign-nostr: sign, verify, display, and the ways a
// signature or a configuration can be wrong.
func TestGitEndToEnd(t *testing.T) {
	l, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := signer.Generate()
	pk, npub := l.PublicKey(), l.NPub()
	keyFile := writeKey(t, l.NSec(), 0o600)
	g := newGitRepo(t, keyFile, npub)

	g.must("commit", "-q", "--allow-empty", "-m", "signed by nostr")
	if obj := g.must("cat-file", "commit", "HEAD"); !strings.Contains(obj, "\ngpgsig -----BEGIN SIGNED MESSAGE-----\n") {
		t.Fatalf("commit is not signed:\n%s", obj)
	}

	t.Run("verify-commit", func(t *testing.T) {
		_, errb, err := g.run("", nil, "verify-commit", "--raw", "HEAD")
		for _, want := range []string{"[GNUPG:] GOODSIG " + pk + " " + pk, "[GNUPG:] TRUST_FULLY 0 shell"} {
			if err != nil || !strings.Contains(errb, want) {
				t.Fatalf("err %v, output lacks %q:\n%s", err, want, errb)
			}
		}
	})
	t.Run("log names the signer", func(t *testing.T) {
		out := g.must("log", "--show-signature", "-1")
		if !strings.Contains(out, "Good signature from "+npub+" ("+pk+")") {
			t.Fatalf("git log --show-signature:\n%s", out)
		}
		if got, want := g.sigStatus("HEAD"), strings.Join([]string{"G", pk, pk, pk, pk, "fully"}, " "); got != want {
			t.Fatalf("%%G? etc: %q, want %q", got, want)
		}
	})
	t.Run("another user.signingkey: good but undefined trust", func(t *testing.T) {
		cfg := []string{"-c", "user.signingkey=" + other.PublicKey()}
		_, errb, err := g.run("", nil, append(cfg, "verify-commit", "HEAD")...)
		// git's default gpg.minTrustLevel is "undefined": the commit passes,
		// and %G? says U (good signature, unknown validity).
		if err != nil || !strings.Contains(errb, "WARNING: this key is not user.signingkey") {
			t.Fatalf("err %v:\n%s", err, errb)
		}
		if got := g.sigStatus("HEAD", cfg...); !strings.HasPrefix(got, "U "+pk) || !strings.HasSuffix(got, "undefined") {
			t.Fatalf("%%G? etc: %q", got)
		}
		strict := append(cfg, "-c", "gpg.minTrustLevel=fully", "verify-commit", "HEAD")
		if _, _, err := g.run("", nil, strict...); err == nil {
			t.Fatal("gpg.minTrustLevel=fully accepted an undefined-trust signature")
		}
	})
	t.Run("tampered signature is BADSIG", func(t *testing.T) {
		id := g.rewriteCommit("HEAD", func(raw string) string {
			return editEnvelope(t, raw, func(js string) string { return flipSigDigit(t, js) })
		})
		expectVerify(t, g, id, "[GNUPG:] BADSIG "+pk, "B")
	})
	t.Run("tampered message is BADSIG", func(t *testing.T) {
		id := g.rewriteCommit("HEAD", func(raw string) string {
			return strings.Replace(raw, "signed by nostr", "signed by someone else", 1)
		})
		expectVerify(t, g, id, "BAD signature from "+npub, "B")
	})
	t.Run("malformed signature is ERRSIG", func(t *testing.T) {
		id := g.rewriteCommit("HEAD", func(raw string) string {
			return editEnvelope(t, raw, func(string) string { return "raw:!!!!" })
		})
		expectVerify(t, g, id, "[GNUPG:] ERRSIG 0000000000000000 0 0 00 0 9", "E")
	})
	t.Run("non-canonical envelope is ERRSIG", func(t *testing.T) {
		id := g.rewriteCommit("HEAD", func(raw string) string {
			return editEnvelope(t, raw, func(js string) string { return strings.Replace(js, `"v":1,`, `"v": 1,`, 1) })
		})
		expectVerify(t, g, id, "[GNUPG:] ERRSIG "+pk+" 0 0 00 0 9", "E")
	})
	t.Run("signed tag", func(t *testing.T) {
		g.must("tag", "-s", "-m", "release", "v1")
		if _, errb, err := g.run("", nil, "verify-tag", "v1"); err != nil || !strings.Contains(errb, "Good signature from "+npub) {
			t.Fatalf("verify-tag: %v\n%s", err, errb)
		}
	})
	signingRefusals(t, g, l, other, keyFile)
}

// signingRefusals checks that git commit -S fails, leaving HEAD as it was,
// when the key or its configuration is wrong, and that the program says why
// (run directly: git 2.39 does not show the reason).
func signingRefusals(t *testing.T, g *gitRepo, l, other *signer.Local, keyFile string) {
	for _, tc := range []struct {
		name, user, why string
		env             []string
		setup           func() func()
	}{
		{name: "key file readable by others", user: l.NPub(), why: "permissions too broad",
			setup: chmod(t, keyFile, 0o644)},
		{name: "-u names another key", user: other.NPub(), why: "names a different key",
			env: configEnv("user.signingkey", other.NPub())},
		{name: "no key at all", user: l.NPub(), why: "no signing key",
			env: configEnv("nostr.keyfile", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				defer tc.setup()()
			}
			head := g.must("rev-parse", "HEAD")
			_, errb, err := g.run("", tc.env, "commit", "-q", "--allow-empty", "-m", "refused")
			if err == nil || !strings.Contains(errb, "gpg failed to sign the data") || g.must("rev-parse", "HEAD") != head {
				t.Fatalf("git commit: err %v\n%s", err, errb)
			}
			out, errb, err := g.signDirect(tc.env, tc.user)
			if err == nil || out != "" || !strings.Contains(errb, tc.why) || strings.Contains(errb, l.NSec()) {
				t.Fatalf("direct: err %v, stdout %q, stderr:\n%s", err, out, errb)
			}
		})
	}
	t.Run("NOSTR_PRIVATE_KEY comes before the key file", func(t *testing.T) {
		defer chmod(t, keyFile, 0o644)()() // a bad key file is not even read
		env := []string{"NOSTR_PRIVATE_KEY=" + l.NSec()}
		if _, errb, err := g.run("", env, "commit", "-q", "--allow-empty", "-m", "env key"); err != nil {
			t.Fatalf("%v\n%s", err, errb)
		}
	})
	t.Run("user.signingkey unset: git passes the committer, which is ignored", func(t *testing.T) {
		g.must("config", "--unset", "user.signingkey")
		defer g.must("config", "user.signingkey", l.PublicKey())
		if _, errb, err := g.run("", nil, "commit", "-q", "--allow-empty", "-m", "no signingkey"); err != nil {
			t.Fatalf("%v\n%s", err, errb)
		}
		if got := g.sigStatus("HEAD"); !strings.HasPrefix(got, "U "+l.PublicKey()) {
			t.Fatalf("%%G? etc: %q", got)
		}
	})
}

// chmod returns a setup that sets path's mode and returns the undo.
func chmod(t *testing.T, path string, mode os.FileMode) func() func() {
	return func() func() {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return func() { os.Chmod(path, 0o600) }
	}
}

// expectVerify checks that verify-commit rejects rev, that its raw output
// contains want, and that git classifies the signature as code (%G?).
func expectVerify(t *testing.T, g *gitRepo, rev, want, code string) {
	t.Helper()
	_, errb, err := g.run("", nil, "verify-commit", "--raw", rev)
	_, human, _ := g.run("", nil, "verify-commit", rev)
	if err == nil || !strings.Contains(errb+human, want) {
		t.Fatalf("verify-commit: err %v, output lacks %q:\n%s%s", err, want, errb, human)
	}
	if got := g.sigCode(rev); !strings.HasPrefix(got, code+" ") {
		t.Fatalf("%%G? etc: %q, want %s", got, code)
	}
}

// flipSigDigit changes the last hex digit of the envelope's sig, keeping the
// envelope well-formed.
func flipSigDigit(t *testing.T, js string) string {
	i := strings.Index(js, `"sig":"`) + len(`"sig":"`) + 127
	if i < 127 {
		t.Fatal("no sig in envelope")
	}
	d := "0"
	if js[i] == '0' {
		d = "1"
	}
	return js[:i] + d + js[i+1:]
}
