package config

import (
	"slices"
	"strings"
	"testing"

	"toolbus/signer"
)

// errKeys returns the keys named by the *KeyError values in err, sorted.
func errKeys(err error) []string {
	var keys []string
	for _, ke := range keyErrors(err) {
		keys = append(keys, ke.Key)
	}
	slices.Sort(keys)
	return keys
}

// newKey returns a fresh public key as hex and npub.
func newKey(t *testing.T) (hexKey, npub string) {
	t.Helper()
	l, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return l.PublicKey(), l.NPub()
}

// mustContain fails unless msg contains every want.
func mustContain(t *testing.T, msg string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}
