package agentsetup

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/BurntSushi/toml"
)

// jsonEntry is one server under "mcpServers". Type is set for Claude Code
// only, which records "stdio" itself when it adds a server; the others infer
// stdio from the presence of command.
type jsonEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// tomlEntry is the body of Codex's [mcp_servers.NAME] table.
type tomlEntry struct {
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
}

func (o Options) jsonEntry() jsonEntry {
	e := jsonEntry{Command: o.Command, Args: o.Args()}
	if o.Client == ClaudeCode {
		e.Type = "stdio"
	}
	return e
}

// marshalJSON encodes v without HTML escaping, so a path holding '&' or '<'
// reads in the config as typed.
func marshalJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// tomlTable renders the [mcp_servers.NAME] table, ending in a newline. The
// name needs no quoting: Validate restricts it to bare-key characters.
func (o Options) tomlTable() (string, error) {
	body, err := toml.Marshal(tomlEntry{Command: o.Command, Args: o.Args()})
	if err != nil {
		return "", err
	}
	return "[mcp_servers." + o.Name + "]\n" + string(body), nil
}

// Snippet is the config text to paste for o.Client: a whole mcp.json
// document for Claude Code and Cursor, the [mcp_servers.NAME] table for
// Codex, and the bare {"command", "args"} object for a generic client.
func Snippet(o Options) (string, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	switch o.Client {
	case Codex:
		return o.tomlTable()
	case Generic:
		b, err := marshalJSON(o.jsonEntry(), "  ")
		return string(b), err
	}
	doc := map[string]map[string]jsonEntry{"mcpServers": {o.Name: o.jsonEntry()}}
	b, err := marshalJSON(doc, "  ")
	return string(b), err
}

// CommandLine is the client's own command that adds the same entry, or ""
// for clients without one or invalid options. It holds the key file's
// path, never a key.
func CommandLine(o Options) string {
	if o.Validate() != nil {
		return ""
	}
	var words []string
	switch o.Client {
	case ClaudeCode:
		words = []string{"claude", "mcp", "add", "--transport", "stdio", "--scope", "user", o.Name, "--"}
	case Codex:
		words = []string{"codex", "mcp", "add", o.Name, "--"}
	default:
		return ""
	}
	words = append(append(words, o.Command), o.Args()...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// shellQuote single-quotes s when a POSIX shell would otherwise split or
// expand it, so that printed command lines paste as they read.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafeInShell) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func unsafeInShell(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("/._-+,:@=%", r)
}
