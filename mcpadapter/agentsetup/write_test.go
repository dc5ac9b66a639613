package agentsetup

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const otherJSON = `{
  "theme": "dark",
  "mcpServers": {
    "other": {"command": "npx", "args": ["-y", "x"], "env": {"API_KEY": "value"}},
    "toolbus": {"command": "old", "note": "replaced"}
  },
  "numbers": [1.50, 12345678901234567890],
  "zeta": {"nested": true}
}`

// decodeLoose decodes JSON keeping numbers as written.
func decodeLoose(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
	return m
}

// writeYes runs agent-setup --write --yes into path.
func writeYes(t *testing.T, s Setup, path string) (string, error) {
	t.Helper()
	s.Write, s.Yes, s.ConfigPath = true, true, path
	stdout, _, err := runSetup(t, s, "")
	return stdout, err
}

func TestWriteJSONKeepsEverythingElse(t *testing.T) {
	for _, c := range []Client{ClaudeCode, Cursor, Generic} {
		s, secrets := testSetup(t, c)
		path := filepath.Join(t.TempDir(), "mcp.json")
		writeFile(t, path, otherJSON, 0o640)
		if _, err := writeYes(t, s, path); err != nil {
			t.Fatal(err)
		}
		first := readFile(t, path)
		assertNoSecret(t, "written config", first, secrets)
		before, after := decodeLoose(t, otherJSON), decodeLoose(t, first)
		entry := after["mcpServers"].(map[string]any)["toolbus"].(map[string]any)
		if entry["command"] != s.Command || entry["note"] != nil {
			t.Errorf("%s: entry not replaced: %v", c, entry)
		}
		delete(before["mcpServers"].(map[string]any), "toolbus")
		delete(after["mcpServers"].(map[string]any), "toolbus")
		if !reflect.DeepEqual(before, after) {
			t.Errorf("%s: other content changed:\n%s", c, first)
		}
		if !inOrder(first, `"theme"`, `"mcpServers"`, `"other"`, `"toolbus"`, `"numbers"`, "1.50", `"zeta"`) {
			t.Errorf("%s: key order or number spelling changed:\n%s", c, first)
		}
		checkBackupAndMode(t, path, otherJSON, 0o640)
		if _, err := writeYes(t, s, path); err != nil {
			t.Fatal(err)
		}
		if again := readFile(t, path); again != first || strings.Count(again, `"toolbus"`) != 1 {
			t.Errorf("%s: second write is not a replacement:\n%s", c, again)
		}
	}
}

// inOrder reports whether the words occur in s in this order.
func inOrder(s string, words ...string) bool {
	at := 0
	for _, w := range words {
		i := strings.Index(s[at:], w)
		if i < 0 {
			return false
		}
		at += i + len(w)
	}
	return true
}

func checkBackupAndMode(t *testing.T, path, old string, mode fs.FileMode) {
	t.Helper()
	if got := readFile(t, path+".bak"); got != old {
		t.Errorf("backup = %q, want the previous content", got)
	}
	for _, p := range []string{path, path + ".bak"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, mode)
		}
	}
}

func TestWriteCreatesPrivateFile(t *testing.T) {
	s, _ := testSetup(t, Cursor)
	path := filepath.Join(t.TempDir(), ".cursor", "mcp.json")
	if _, err := writeYes(t, s, path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", fi, err)
	}
	if got := parseSnippet(t, Cursor, readFile(t, path), DefaultName); got.Command != s.Command {
		t.Errorf("new file holds %+v", got)
	}
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup of nothing was made: %v", err)
	}
}

func TestWriteRefusesUnparseable(t *testing.T) {
	cases := []struct {
		client  Client
		content string
	}{
		{ClaudeCode, `{"mcpServers": {,}}`},
		{Cursor, "{\n  // a comment\n  \"mcpServers\": {}\n}"},
		{Cursor, `{"mcpServers": []}`},
		{Cursor, `{"mcpServers": {}, "mcpServers": {}}`},
		{Generic, `[1, 2]`},
		{Codex, "model = \n"},
		{Codex, "mcp_servers = 3\n"},
		{Codex, "[mcp_servers]\ntoolbus = { command = \"x\" }\n"},
		{Codex, "mcp_servers.toolbus.command = \"x\"\n"},
	}
	for _, tc := range cases {
		s, _ := testSetup(t, tc.client)
		path := filepath.Join(t.TempDir(), "config")
		writeFile(t, path, tc.content, 0o600)
		_, err := writeYes(t, s, path)
		if err == nil || !strings.Contains(err.Error(), "nothing written") {
			t.Errorf("%s %q: err = %v, want a refusal", tc.client, tc.content, err)
		}
		if got := readFile(t, path); got != tc.content {
			t.Errorf("%s %q: file changed to %q", tc.client, tc.content, got)
		}
		if _, err := os.Stat(path + ".bak"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: backup written on a refusal", tc.client)
		}
	}
}

func TestWriteAsksFirst(t *testing.T) {
	for _, answer := range []string{"n\n", "\n", "", "yess\n"} {
		s, _ := testSetup(t, Cursor)
		path := filepath.Join(t.TempDir(), "mcp.json")
		writeFile(t, path, otherJSON, 0o600)
		s.Write, s.ConfigPath = true, path
		stdout, _, err := runSetup(t, s, answer)
		if err != nil || !strings.Contains(stdout, "[y/N]") || !strings.Contains(stdout, "Nothing written") {
			t.Errorf("answer %q: err %v, stdout:\n%s", answer, err, stdout)
		}
		if readFile(t, path) != otherJSON {
			t.Errorf("answer %q: file changed", answer)
		}
	}
	s, _ := testSetup(t, Cursor)
	path := filepath.Join(t.TempDir(), "mcp.json")
	s.Write, s.ConfigPath = true, path
	if _, _, err := runSetup(t, s, "Y\n"); err != nil || !strings.Contains(readFile(t, path), s.Command) {
		t.Errorf("answer Y: %v", err)
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	s, _ := testSetup(t, Cursor)
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles-mcp.json")
	writeFile(t, target, "{}", 0o600)
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := writeYes(t, s, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if !strings.Contains(readFile(t, target), s.Command) {
		t.Errorf("the link's target was not updated")
	}
}

func TestApplyRefusesAChangedFile(t *testing.T) {
	s, _ := testSetup(t, Cursor)
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, path, "{}", 0o600)
	p, err := PlanWrite(path, s.Options)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, `{"theme": "light"}`, 0o600)
	if err := p.Apply(); err == nil {
		t.Error("applied over a concurrent change")
	}
	if readFile(t, path) != `{"theme": "light"}` {
		t.Error("the concurrent change was lost")
	}
}
