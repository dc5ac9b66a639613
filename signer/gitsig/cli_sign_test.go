package gitsig

import (
	"io"
	"strings"
	"testing"

	"toolbus/signer"
)

func signEnv(k testKey) cliEnv { return cliEnv{key: k, now: vecTime} }

// The exact bytes git gets: the armored signature on stdout and, on the
// status fd, BEGIN_SIGNING then SIG_CREATED with t and the hex key.
func TestSignOutputAndStatusLines(t *testing.T) {
	k := newTestKey(vecSignerByte)
	r := runCLI(signEnv(k), strings.NewReader(vecPayload), "--status-fd=3", "-bsau", signer.EncodeNPub(k.PublicKey()))
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if want := forceSign(t, k, vecPayload, vecTime, nil); r.stdout != want {
		t.Fatalf("stdout\n%s\nwant\n%s", r.stdout, want)
	}
	want := "[GNUPG:] BEGIN_SIGNING\n[GNUPG:] SIG_CREATED D 8 1 00 1750000000 " + k.PublicKey() + "\n"
	if r.status != want {
		t.Fatalf("status %q, want %q", r.status, want)
	}
}

func TestSignStatusFDForms(t *testing.T) {
	k := newTestKey(vecSignerByte)
	for name, args := range map[string][]string{
		"separate value": {"--status-fd", "3", "-bsau", k.PublicKey()},
		"split short":    {"--status-fd=3", "-b", "-s", "-a", "-u", k.PublicKey()},
		"no -u":          {"--status-fd=3", "-bsa"},
		"unknown args":   {"--keyid-format=long", "--status-fd=3", "--armor", "-x", "--future-flag", "-bsau", k.PublicKey()},
	} {
		r := runCLI(signEnv(k), strings.NewReader(vecPayload), args...)
		if r.code != 0 || !strings.Contains(r.status, "SIG_CREATED") {
			t.Errorf("%s: exit %d, status %q, stderr %q", name, r.code, r.status, r.stderr)
		}
	}
	// Without --status-fd, status lines go to stderr.
	r := runCLI(signEnv(k), strings.NewReader(vecPayload), "-bsau", k.PublicKey())
	if r.code != 0 || !strings.Contains(r.stderr, "[GNUPG:] SIG_CREATED D 8 1 00 ") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// An unusable status fd loses the status lines, not the signature.
func TestSignUnwritableStatusFD(t *testing.T) {
	k := newTestKey(vecSignerByte)
	r := runCLI(signEnv(k), strings.NewReader(vecPayload), "--status-fd=7", "-bsau", k.PublicKey())
	if r.code != 0 || r.stdout == "" || !strings.Contains(r.stderr, "status fd 7 is not writable") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestSignUserKeyCheck(t *testing.T) {
	k, other := newTestKey(vecSignerByte), newTestKey(vecOtherByte)
	for _, tc := range []struct {
		user string
		ok   bool
	}{
		{k.PublicKey(), true},
		{strings.ToUpper(k.PublicKey()), true},
		{signer.EncodeNPub(k.PublicKey()), true},
		{"Vector Signer <vectors@toolbus.invalid>", true}, // git's default when user.signingkey is unset
		{"", true},
		{other.PublicKey(), false},
		{signer.EncodeNPub(other.PublicKey()), false},
		{"npub1notakey", false},
		{notOnCurve(), false},
	} {
		r := runCLI(signEnv(k), strings.NewReader(vecPayload), "--status-fd=3", "-bsau", tc.user)
		if (r.code == 0) != tc.ok {
			t.Errorf("-u %q: exit %d, stderr %q", tc.user, r.code, r.stderr)
		}
		if !tc.ok && (r.stdout != "" || strings.Contains(r.status, "SIG_CREATED")) {
			t.Errorf("-u %q: refused but wrote %q / %q", tc.user, r.stdout, r.status)
		}
	}
}

// A secret key put in user.signingkey by mistake is refused and never
// echoed, in either encoding.
func TestSignUserSecretNotEchoed(t *testing.T) {
	k, other := newTestKey(vecSignerByte), newTestKey(vecOtherByte)
	l, _ := signer.ParseSecret(other.secretHex())
	for _, user := range []string{l.NSec(), other.secretHex()} {
		r := runCLI(signEnv(k), strings.NewReader(vecPayload), "--status-fd=3", "-bsau", user)
		if r.code == 0 {
			t.Errorf("signed with a secret key as -u")
		}
		if strings.Contains(r.stderr+r.stdout+r.status, user) {
			t.Errorf("output echoes the secret: %q", r.stderr)
		}
	}
}

func TestSignNoKey(t *testing.T) {
	r := runCLI(cliEnv{loadErr: errNoKey}, strings.NewReader(vecPayload), "--status-fd=3", "-bsau", "x")
	if r.code != 1 || r.stdout != "" || r.status != "" || !strings.Contains(r.stderr, "NOSTR_PRIVATE_KEY") {
		t.Fatalf("%+v", r)
	}
}

// zeros is an endless stream of zero bytes: a synthetic large commit.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// The payload cap on stdin: exactly MaxPayload signs, one byte more fails
// with nothing on stdout (git would take any output as the signature).
func TestSignPayloadCap(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 200 MiB")
	}
	k := newTestKey(vecSignerByte)
	r := runCLI(signEnv(k), io.LimitReader(zeros{}, MaxPayload+1), "--status-fd=3", "-bsau", k.PublicKey())
	if r.code != 1 || r.stdout != "" || strings.Contains(r.status, "SIG_CREATED") ||
		!strings.Contains(r.stderr, "payload is larger than") {
		t.Fatalf("over the cap: exit %d, stdout %q, status %q, stderr %q", r.code, r.stdout, r.status, r.stderr)
	}
	r = runCLI(signEnv(k), io.LimitReader(zeros{}, MaxPayload), "--status-fd=3", "-bsau", k.PublicKey())
	if r.code != 0 {
		t.Fatalf("at the cap: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestUsage(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		code int
	}{
		"no mode":            {[]string{"--status-fd=2"}, 2},
		"both modes":         {[]string{"-bsau", "k", "--verify", "f", "-"}, 2},
		"verify without sig": {[]string{"--verify"}, 2},
		"help":               {[]string{"--help"}, 0},
	} {
		if r := runCLI(cliEnv{}, strings.NewReader(""), tc.args...); r.code != tc.code {
			t.Errorf("%s: exit %d, want %d", name, r.code, tc.code)
		}
	}
}
