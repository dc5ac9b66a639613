package agentsetup

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/BurntSushi/toml"
)

// MergeTOML returns old, a Codex config.toml, with the table
// [mcp_servers.NAME] (and its sub-tables) replaced by table in place, or
// table appended at the end. It edits lines rather than re-encoding the
// document, because a decode/encode round trip would drop the user's
// comments and reorder their keys. The result is decoded again and must
// equal old's content with just that entry changed; an entry written in a
// form this line edit cannot reach (an inline table, dotted keys) fails that
// check and is refused rather than guessed at.
func MergeTOML(old []byte, name, table string) (merged []byte, replaced bool, err error) {
	before, err := decodeTOML(old)
	if err != nil {
		return nil, false, fmt.Errorf("not valid TOML: %w", err)
	}
	servers, ok := before["mcp_servers"].(map[string]any)
	if _, present := before["mcp_servers"]; present && !ok {
		return nil, false, errors.New("mcp_servers is not a table")
	}
	_, replaced = servers[name]
	if bytes.Contains(old, []byte("\r\n")) {
		table = strings.ReplaceAll(table, "\n", "\r\n")
	}
	out, found := replaceTable(strings.SplitAfter(string(old), "\n"), name, table)
	if !found {
		out = appendTable(string(old), table)
	}
	if err := checkTOMLEdit(before, out, name, table); err != nil {
		return nil, false, err
	}
	return []byte(out), replaced, nil
}

func decodeTOML(b []byte) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.Decode(string(b), &m)
	return m, err
}

// replaceTable drops every block whose header is mcp_servers.NAME or below
// it and puts table where the first one was. A block's trailing comments
// and blank lines stay: they usually introduce the next table.
func replaceTable(lines []string, name, table string) (string, bool) {
	var b strings.Builder
	found := false
	for i := 0; i < len(lines); {
		if !isEntryHeader(lines[i], name) {
			b.WriteString(lines[i])
			i++
			continue
		}
		end := i + 1
		for end < len(lines) && !isHeader(lines[end]) {
			end++
		}
		keep := end
		for keep > i+1 && isBlankOrComment(lines[keep-1]) {
			keep--
		}
		kept := lines[keep:end]
		if !found {
			b.WriteString(table)
			found = true
		} else if out := b.String(); strings.HasSuffix(out, "\n\n") || strings.HasSuffix(out, "\n\r\n") {
			// A later sub-table went away too: do not stack its blank
			// lines on the ones already kept.
			for len(kept) > 0 && strings.TrimSpace(kept[0]) == "" {
				kept = kept[1:]
			}
		}
		b.WriteString(strings.Join(kept, ""))
		i = end
	}
	return b.String(), found
}

func appendTable(old, table string) string {
	nl := "\n"
	if strings.Contains(old, "\r\n") {
		nl = "\r\n"
	}
	if old != "" && !strings.HasSuffix(old, "\n") {
		old += nl
	}
	if strings.TrimSpace(old) != "" {
		old += nl
	}
	return old + table
}

func isBlankOrComment(line string) bool {
	s := strings.TrimSpace(line)
	return s == "" || strings.HasPrefix(s, "#")
}

func isHeader(line string) bool {
	_, ok := parseHeader(line)
	return ok
}

func isEntryHeader(line, name string) bool {
	path, ok := parseHeader(line)
	return ok && len(path) >= 2 && path[0] == "mcp_servers" && path[1] == name
}

// checkTOMLEdit decodes the edited document and compares it with the
// original plus the new entry. Both sides are re-encoded for the
// comparison: the encoder is deterministic, whereas reflect.DeepEqual would
// trip over the time zones of decoded dates.
func checkTOMLEdit(before map[string]any, edited, name, table string) error {
	after, err := decodeTOML([]byte(edited))
	if err != nil {
		return fmt.Errorf("mcp_servers.%s is defined in a form this tool does not edit (%v); edit the file by hand", name, err)
	}
	entry, err := decodeTOML([]byte(table))
	if err != nil {
		return fmt.Errorf("generated table: %w", err)
	}
	want := maps.Clone(before)
	servers, _ := before["mcp_servers"].(map[string]any)
	servers = maps.Clone(servers)
	if servers == nil {
		servers = map[string]any{}
	}
	servers[name] = entry["mcp_servers"].(map[string]any)[name]
	want["mcp_servers"] = servers
	w, err1 := toml.Marshal(want)
	a, err2 := toml.Marshal(after)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("cannot check the edit: %w", err)
	}
	if !bytes.Equal(w, a) {
		return fmt.Errorf("mcp_servers.%s is defined in a form this tool does not edit in place; edit the file by hand", name)
	}
	return nil
}
