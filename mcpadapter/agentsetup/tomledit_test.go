package agentsetup

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const codexConfig = `# Codex config
model = "o3"  # my model

[mcp_servers.other]
command = "npx"
args = ["-y", "x"]

# the toolbus entry
[mcp_servers.toolbus]
command = "old"
args = []
startup_timeout_sec = 5

[mcp_servers.toolbus.env]
FOO = "bar"

# profiles below
[profiles.fast]
model = "o4-mini"
`

// codexWant is codexConfig with only the toolbus table (and its env
// sub-table) swapped for table; comments and other lines stay as they were.
func codexWant(table string) string {
	return `# Codex config
model = "o3"  # my model

[mcp_servers.other]
command = "npx"
args = ["-y", "x"]

# the toolbus entry
` + table + `
# profiles below
[profiles.fast]
model = "o4-mini"
`
}

func TestWriteTOMLTouchesOnlyTheEntry(t *testing.T) {
	s, secrets := testSetup(t, Codex)
	path := filepath.Join(t.TempDir(), "config.toml")
	writeFile(t, path, codexConfig, 0o600)
	if _, err := writeYes(t, s, path); err != nil {
		t.Fatal(err)
	}
	table, err := Snippet(s.Options) // for Codex, the table itself
	if err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if want := codexWant(table); got != want {
		t.Errorf("edited config:\n%s\nwant:\n%s", got, want)
	}
	assertNoSecret(t, "written config", got, secrets)
	checkBackupAndMode(t, path, codexConfig, 0o600)
	if _, err := writeYes(t, s, path); err != nil {
		t.Fatal(err)
	}
	if again := readFile(t, path); again != got {
		t.Errorf("second write differs:\n%s", again)
	}
}

func TestMergeTOMLAppends(t *testing.T) {
	o := Options{Client: Codex, Command: "/bin/toolbus", Relay: DefaultRelay, KeyFile: "/k", Name: "tb"}
	table, err := o.tomlTable()
	if err != nil {
		t.Fatal(err)
	}
	for old, want := range map[string]string{
		"":                       table,
		"model = \"o3\"":         "model = \"o3\"\n\n" + table,
		"[mcp_servers.a]\nx=1\n": "[mcp_servers.a]\nx=1\n\n" + table,
		"a = 1\r\n":              "a = 1\r\n\r\n" + strings.ReplaceAll(table, "\n", "\r\n"),
		// An unrelated table with our name as a prefix is left alone.
		"[mcp_servers.tbx]\ncommand = \"y\"\n": "[mcp_servers.tbx]\ncommand = \"y\"\n\n" + table,
	} {
		got, replaced, err := MergeTOML([]byte(old), "tb", table)
		if err != nil || replaced || string(got) != want {
			t.Errorf("MergeTOML(%q) = %q, %v, %v; want %q", old, got, replaced, err, want)
		}
	}
	// Quoted and spaced headers are the same table.
	old := "[ \"mcp_servers\" . 'tb' ] # mine\ncommand = \"z\"\n"
	got, replaced, err := MergeTOML([]byte(old), "tb", table)
	if err != nil || !replaced || string(got) != table {
		t.Errorf("quoted header: %q, %v, %v", got, replaced, err)
	}
}

func TestParseHeader(t *testing.T) {
	for line, want := range map[string][]string{
		"[a]":                       {"a"},
		"  [a.b] # c":               {"a", "b"},
		"[[a.b]]":                   {"a", "b"},
		`["a.b".'c d' . e]`:         {"a.b", "c d", "e"},
		`[mcp_servers."tool\"bus"]`: {"mcp_servers", `tool"bus`},
		"a = [1]":                   nil,
		"[1, 2]":                    nil,
		`["a", "b"],`:               nil,
		"[a] x":                     nil,
		"[a":                        nil,
		"[]":                        nil,
	} {
		got, ok := parseHeader(line)
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Errorf("parseHeader(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
}
