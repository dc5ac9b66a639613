package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// withoutKeys drops both key variables from env.
func withoutKeys(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, signer.EnvVar+"=") && !strings.HasPrefix(kv, signer.BuzzEnvVar+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// NIP-GS key loading: git-sign-nostr signs with BUZZ_PRIVATE_KEY when
// NOSTR_PRIVATE_KEY is unset, and NOSTR_PRIVATE_KEY wins over it (git
// passes -u user.signingkey, which must name the loaded key).
func TestGitSignWithBuzzKey(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	buzz, nostrKey := testutil.NewKey(t), testutil.NewKey(t)
	home := t.TempDir()
	env := append(withoutKeys(gitEnv(home)), signer.BuzzEnvVar+"="+buzz.NSec())
	repo := filepath.Join(home, "r")
	must(t, env, home, "git", "init", "-q", "-b", "main", repo)
	for _, kv := range [][2]string{{"gpg.format", "x509"}, {"gpg.x509.program", testutil.Binary(t, "git-sign-nostr")},
		{"user.email", "b@example"}, {"user.name", "b"}} {
		must(t, env, repo, "git", "config", kv[0], kv[1])
	}
	if err := os.WriteFile(filepath.Join(repo, "f"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, env, repo, "git", "add", ".")
	must(t, env, repo, "git", "-c", "user.signingkey="+buzz.NPub(), "commit", "-q", "-S", "-m", "signed")
	out := must(t, env, repo, "git", "-c", "user.signingkey="+buzz.NPub(), "log", "--show-signature", "-1")
	if !strings.Contains(out, buzz.NPub()) && !strings.Contains(out, buzz.PublicKey()) {
		t.Fatalf("signature does not name the BUZZ_PRIVATE_KEY key:\n%s", out)
	}
	must(t, env, repo, "git", "verify-commit", "HEAD")

	// With both set, NOSTR_PRIVATE_KEY is the key: asking for the BUZZ key is refused.
	both := append(env, signer.EnvVar+"="+nostrKey.NSec())
	if out, err := run(t, both, repo, "git", "-c", "user.signingkey="+buzz.NPub(), "commit", "-q", "-S", "--allow-empty", "-m", "x"); err == nil {
		t.Fatalf("signed as the BUZZ key although NOSTR_PRIVATE_KEY is set:\n%s", out)
	}
	must(t, both, repo, "git", "-c", "user.signingkey="+nostrKey.NPub(), "commit", "-q", "-S", "--allow-empty", "-m", "y")
	out = must(t, both, repo, "git", "log", "--show-signature", "-1")
	if !strings.Contains(out, nostrKey.NPub()) && !strings.Contains(out, nostrKey.PublicKey()) {
		t.Fatalf("signature does not name the NOSTR_PRIVATE_KEY key:\n%s", out)
	}
}
