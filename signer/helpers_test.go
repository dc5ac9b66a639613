package signer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NIP-19's example secret key, in both encodings.
const (
	vecNsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"
	vecHex  = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa"
)

func mustGenerate(t testing.TB) *Local {
	t.Helper()
	l, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// assertNoSecret fails if text contains l's secret in any encoding or case.
func assertNoSecret(t *testing.T, what, text string, l *Local) {
	t.Helper()
	lower := strings.ToLower(text)
	for _, s := range []string{l.secretHex(), strings.ToLower(l.NSec())} {
		if strings.Contains(lower, s) {
			t.Errorf("%s leaks the secret key: %q", what, text)
		}
	}
}

// writeKeyFile writes content to dir/name with exactly mode perm.
func writeKeyFile(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// resetEnvStash empties the TakeEnv stash now and after the test, so tests
// (and a developer's own NOSTR_PRIVATE_KEY) do not leak into each other.
func resetEnvStash(t *testing.T) {
	t.Helper()
	clearStash := func() {
		envStash.mu.Lock()
		envStash.value = ""
		envStash.mu.Unlock()
	}
	clearStash()
	t.Cleanup(clearStash)
}
