package agentsetup

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// server is the part of an entry every client reads.
type server struct {
	Type    string   `json:"type" toml:"type"`
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

// parseSnippet parses a printed snippet the way client c reads its file,
// rejecting fields the entry should not have.
func parseSnippet(t *testing.T, c Client, snippet, name string) server {
	t.Helper()
	if c == Codex {
		var doc struct {
			Servers map[string]server `toml:"mcp_servers"`
		}
		md, err := toml.Decode(snippet, &doc)
		if err != nil || len(md.Undecoded()) > 0 {
			t.Fatalf("codex snippet is not the expected TOML (%v, undecoded %v):\n%s", err, md.Undecoded(), snippet)
		}
		return doc.Servers[name]
	}
	dec := json.NewDecoder(strings.NewReader(snippet))
	dec.DisallowUnknownFields()
	if c == Generic {
		var s server
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("generic snippet is not the expected JSON: %v\n%s", err, snippet)
		}
		return s
	}
	var doc struct {
		Servers map[string]server `json:"mcpServers"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s snippet is not the expected JSON: %v\n%s", c, err, snippet)
	}
	return doc.Servers[name]
}

func TestPrintedEntryParsesForEachClient(t *testing.T) {
	for _, c := range Clients {
		t.Run(string(c), func(t *testing.T) {
			s, secrets := testSetup(t, c)
			stdout, stderr, err := runSetup(t, s, "")
			if err != nil {
				t.Fatal(err)
			}
			snippet, err := Snippet(s.Options)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, strings.TrimSuffix(snippet, "\n")) {
				t.Errorf("stdout does not hold the snippet:\n%s", stdout)
			}
			got := parseSnippet(t, c, snippet, DefaultName)
			want := []string{"mcp", "--relay", s.Relay, "--key-file", s.KeyFile}
			if got.Command != s.Command || !slices.Equal(got.Args, want) {
				t.Errorf("entry = %q %q, want %q %q", got.Command, got.Args, s.Command, want)
			}
			if !filepath.IsAbs(got.Args[4]) {
				t.Errorf("key file %q is not absolute", got.Args[4])
			}
			if stderr != "" {
				t.Errorf("stderr for a good key file: %s", stderr)
			}
			for _, want := range []string{`{"command": "pwd"}`, "<worker>__shell"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("trial prompt lacks %q", want)
				}
			}
			assertNoSecret(t, "stdout", stdout, secrets)
			assertNoSecret(t, "stderr", stderr, secrets)
		})
	}
}

// TestCommandLineSplitsBack runs the printed add command's words through a
// real shell, so quoting of a key path with a space is checked for real.
func TestCommandLineSplitsBack(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, c := range []Client{ClaudeCode, Codex} {
		s, secrets := testSetup(t, c)
		line := CommandLine(s.Options)
		assertNoSecret(t, "command line", line, secrets)
		out, err := exec.Command("sh", "-c", "set -- "+line+`; printf '%s\n' "$@"`).Output()
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		i := slices.Index(words, "--")
		want := append([]string{s.Command}, s.Args()...)
		if i < 0 || !slices.Equal(words[i+1:], want) || !slices.Contains(words[:i], DefaultName) {
			t.Errorf("%s: %q splits into %q", c, line, words)
		}
	}
}

func TestKeyFileAdvice(t *testing.T) {
	s, secrets := testSetup(t, Cursor)
	if err := os.Chmod(s.KeyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runSetup(t, s, "")
	if err != nil || !strings.Contains(stderr, "chmod 600 '"+s.KeyFile+"'") {
		t.Errorf("mode 0644: err %v, stderr %s", err, stderr)
	}
	assertNoSecret(t, "stderr", stderr, secrets)

	s.KeyFile = filepath.Join(t.TempDir(), "missing")
	stdout, stderr, err := runSetup(t, s, "")
	if err != nil || !strings.Contains(stderr, "toolbus key new --out "+s.KeyFile) {
		t.Errorf("missing key: err %v, stderr %s", err, stderr)
	}
	if !strings.Contains(stdout, s.KeyFile) {
		t.Errorf("the entry should still be printed for a key file yet to be made")
	}
	empty := filepath.Join(t.TempDir(), "empty")
	writeFile(t, empty, "", 0o600)
	if adv := KeyFileAdvice(empty); !strings.Contains(adv, "empty") {
		t.Errorf("empty key file: %q", adv)
	}
}

func TestResolveCommand(t *testing.T) {
	cmd, note := ResolveCommand("/tmp/go-build1234/b001/exe/toolbus", nil)
	if cmd != "toolbus" || !strings.Contains(note, "go run") {
		t.Errorf("go run binary: %q, %q", cmd, note)
	}
	exe := filepath.Join(t.TempDir(), "toolbus")
	writeFile(t, exe, "", 0o700)
	link := filepath.Join(t.TempDir(), "tb")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	if cmd, note := ResolveCommand(link, nil); cmd != exe || note != "" {
		t.Errorf("installed binary: %q, %q", cmd, note)
	}
	if cmd, err := AbsCommand("toolbus"); cmd != "toolbus" || err != nil || CommandAdvice(cmd) == "" {
		t.Errorf("bare name: %q %v", cmd, err)
	}
}

func TestValidateRefuses(t *testing.T) {
	good := Options{Client: Codex, Command: "toolbus", Relay: DefaultRelay, KeyFile: "/k"}
	for name, mutate := range map[string]func(*Options){
		"relative key file": func(o *Options) { o.KeyFile = "key" },
		"name with a dot":   func(o *Options) { o.Name = "tool.bus" },
		"name with a quote": func(o *Options) { o.Name = `a"b` },
		"http relay":        func(o *Options) { o.Relay = "http://127.0.0.1:7447" },
		"password in relay": func(o *Options) { o.Relay = "wss://u:secret@relay.example" },
		"unknown client":    func(o *Options) { o.Client = "vim" },
		"no command":        func(o *Options) { o.Command = "" },
	} {
		o := good
		mutate(&o)
		var out bytes.Buffer
		if err := Run(Setup{Options: o}, nil, &out, &out); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := good.Validate(); err != nil || good.Name != DefaultName {
		t.Errorf("good options: %v, name %q", err, good.Name)
	}
}
