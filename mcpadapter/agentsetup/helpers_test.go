package agentsetup

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/signer"
)

// testKey writes a real key file into a temp dir and returns its path and
// the secret's two spellings, which must appear nowhere agent-setup writes.
func testKey(t *testing.T) (path string, secrets []string) {
	t.Helper()
	for {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			t.Fatal(err)
		}
		h := hex.EncodeToString(b[:])
		key, err := signer.ParseSecret(h)
		if err != nil {
			continue // out of the curve's range: draw again
		}
		path = filepath.Join(t.TempDir(), "keys", "agent key")
		if err := signer.WriteKeyFile(path, key); err != nil {
			t.Fatal(err)
		}
		return path, []string{h, key.NSec()}
	}
}

// assertNoSecret fails if any secret occurs in text, in any letter case.
func assertNoSecret(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
			t.Errorf("%s contains the secret key", what)
		}
	}
}

// testSetup is a Setup for client with a real key file.
func testSetup(t *testing.T, client Client) (Setup, []string) {
	t.Helper()
	keyFile, secrets := testKey(t)
	return Setup{Options: Options{
		Client:  client,
		Command: "/opt/toolbus/bin/toolbus",
		Relay:   "ws://127.0.0.1:7447",
		KeyFile: keyFile,
	}}, secrets
}

// runSetup runs s with stdin answering answer and returns stdout, stderr.
func runSetup(t *testing.T, s Setup, answer string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(s, strings.NewReader(answer), &out, &errOut)
	return out.String(), errOut.String(), err
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
