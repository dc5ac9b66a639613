package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
)

func TestKeyCommands(t *testing.T) {
	bin := testutil.Binary(t, "toolbus")
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "me.key")

	out, err := exec.Command(bin, "key", "new", "--out", keyFile).CombinedOutput()
	if err != nil {
		t.Fatalf("key new: %v\n%s", err, out)
	}
	if fi, _ := os.Stat(keyFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v", fi.Mode().Perm())
	}
	secret, _ := os.ReadFile(keyFile)
	if strings.Contains(string(out), strings.TrimSpace(string(secret))) {
		t.Fatal("key new printed the secret")
	}
	if out, err := exec.Command(bin, "key", "new", "--out", keyFile).CombinedOutput(); err == nil {
		t.Fatalf("key new overwrote an existing file: %s", out)
	}

	show, err := exec.Command(bin, "key", "show", "--key-file", keyFile).CombinedOutput()
	if err != nil || !strings.Contains(string(show), "npub1") || strings.Contains(string(show), "nsec1") {
		t.Fatalf("key show: %v\n%s", err, show)
	}

	os.Chmod(keyFile, 0o644)
	out, err = exec.Command(bin, "key", "show", "--key-file", keyFile).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "chmod 600") {
		t.Fatalf("0644 key file: want refusal naming chmod 600, got %v\n%s", err, out)
	}
}

// The secret in NOSTR_PRIVATE_KEY is taken out of the environment at
// start-up; an invalid one is reported without echoing it.
func TestEnvKeyNeverEchoed(t *testing.T) {
	bin := testutil.Binary(t, "toolbus")
	cmd := exec.Command(bin, "key", "show")
	bogus := "deadbeef-not-a-key-but-secret-looking"
	cmd.Env = append(os.Environ(), "NOSTR_PRIVATE_KEY="+bogus, "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), bogus) || !strings.Contains(string(out), "NOSTR_PRIVATE_KEY") {
		t.Fatalf("want an error naming the variable but not its value, got %v\n%s", err, out)
	}
}
