package gitsig

import (
	"io"
	"os"
	"strings"
	"testing"

	"toolbus/signer"
)

// verifyCLI verifies sig over payload with user.signingkey set to userKey.
func verifyCLI(t *testing.T, userKey, sig string, payload io.Reader) cliResult {
	t.Helper()
	env := cliEnv{config: map[string]string{signingKeyKey: userKey}}
	return runCLI(env, payload, "--status-fd=3", "--verify", writeTemp(t, sig), "-")
}

// The exact status lines, written out here rather than taken from the
// vector file, so that a change in them cannot pass unnoticed.
func TestVerifyStatusLines(t *testing.T) {
	b := newVecBase(t)
	pk := b.signer.PublicKey()
	good := "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG " + pk + " " + pk + "\n" +
		"[GNUPG:] VALIDSIG " + pk + " 2025-06-15 1750000000 0 - - - - - " + pk + "\n"
	altered := strings.Replace(vecPayload, "vector", "Vector", 1)
	for name, tc := range map[string]struct {
		userKey, sig, payload, status string
		code                          int
	}{
		"trusted":     {pk, b.plain, vecPayload, good + "[GNUPG:] TRUST_FULLY 0 shell\n", 0},
		"other key":   {newTestKey(vecOtherByte).PublicKey(), b.plain, vecPayload, good + "[GNUPG:] TRUST_UNDEFINED 0 shell\n", 0},
		"unset":       {"", b.plain, vecPayload, good + "[GNUPG:] TRUST_UNDEFINED 0 shell\n", 0},
		"bad":         {pk, b.plain, altered, "[GNUPG:] NEWSIG\n[GNUPG:] BADSIG " + pk + " " + pk + "\n", 1},
		"err, no key": {pk, "garbage", vecPayload, "[GNUPG:] ERRSIG 0000000000000000 0 0 00 0 9\n", 1},
		"err, key": {pk, armorJSON(edit(t, b.plainJSON, `"v":1`, `"v":2`)), vecPayload,
			"[GNUPG:] ERRSIG " + pk + " 0 0 00 0 9\n", 1},
	} {
		r := verifyCLI(t, tc.userKey, tc.sig, strings.NewReader(tc.payload))
		if r.status != tc.status || r.code != tc.code || r.stdout != "" {
			t.Errorf("%s: exit %d, status\n%s\nwant\n%s", name, r.code, r.status, tc.status)
		}
	}
}

// user.signingkey is compared as a key, whatever its spelling; a secret key
// there earns no trust and is never echoed.
func TestVerifyTrustSpellings(t *testing.T) {
	b := newVecBase(t)
	pk := b.signer.PublicKey()
	l, _ := signer.ParseSecret(b.signer.secretHex())
	for userKey, trusted := range map[string]bool{
		pk:                      true,
		strings.ToUpper(pk):     true,
		signer.EncodeNPub(pk):   true,
		" " + pk + " ":          true,
		"Vector Signer <v@x.y>": false,
		l.NSec():                false,
		b.signer.secretHex():    false,
	} {
		r := verifyCLI(t, userKey, b.plain, strings.NewReader(vecPayload))
		if got := strings.Contains(r.status, "TRUST_FULLY"); got != trusted || r.code != 0 {
			t.Errorf("user.signingkey %q: exit %d, status %q", userKey, r.code, r.status)
		}
		if userKey != pk && strings.Contains(r.stderr, strings.TrimSpace(userKey)) && !trusted {
			t.Errorf("stderr echoes user.signingkey %q", userKey)
		}
	}
}

// stderr is what git log --show-signature prints: it must name the signer,
// and the owner claim apart from it.
func TestVerifyHumanOutput(t *testing.T) {
	b := newVecBase(t)
	pk := b.signer.PublicKey()
	r := verifyCLI(t, pk, b.oa, strings.NewReader(vecPayload))
	for _, want := range []string{"Good signature from " + signer.EncodeNPub(pk) + " (" + pk + ")",
		"Authorized by owner " + signer.EncodeNPub(b.owner.PublicKey()), "2025-06-15 15:06:40 UTC",
		"This is the key in user.signingkey"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = verifyCLI(t, "", b.plain, strings.NewReader("tampered"))
	if !strings.Contains(r.stderr, "BAD signature from "+signer.EncodeNPub(pk)) {
		t.Errorf("BADSIG stderr: %s", r.stderr)
	}
}

// git itself uses --status-fd=1; gpg's optional payload file is honoured.
func TestVerifyStatusOnStdoutAndPayloadFile(t *testing.T) {
	b := newVecBase(t)
	payload := t.TempDir() + "/payload"
	if err := os.WriteFile(payload, []byte(vecPayload), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(cliEnv{}, strings.NewReader("not the payload"), "--status-fd=1", "--verify", writeTemp(t, b.plain), payload)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(cliEnv{}, strings.NewReader(""), "--status-fd=1", "--verify", t.TempDir()+"/missing", "-")
	if r.code != 1 || !strings.Contains(r.stdout, "ERRSIG "+zeroKeyID) {
		t.Fatalf("missing signature file: exit %d, stdout %q", r.code, r.stdout)
	}
}

// An oversized payload is ERRSIG naming the key, not BADSIG: nothing was
// verified.
func TestVerifyPayloadCap(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 100 MiB")
	}
	b := newVecBase(t)
	r := verifyCLI(t, "", b.plain, io.LimitReader(zeros{}, MaxPayload+1))
	if want := "[GNUPG:] ERRSIG " + b.signer.PublicKey() + " 0 0 00 0 9\n"; r.code != 1 || r.status != want {
		t.Fatalf("exit %d, status %q", r.code, r.status)
	}
}

func TestOSStatusFD(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	w, err := OSStatusFD(int(pw.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "[GNUPG:] NEWSIG\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := pr.Read(buf)
	if string(buf[:n]) != "[GNUPG:] NEWSIG\n" {
		t.Fatalf("read %q", buf[:n])
	}
	if _, err := OSStatusFD(1 << 20); err == nil {
		t.Fatal("a descriptor that is not open was accepted")
	}
}
