package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxEditArgBytes caps old_str and new_str: an edit bigger than this is a
// rewrite, not a replacement.
const maxEditArgBytes = 1 << 20

// strReplaceIn is str_replace's arguments.
type strReplaceIn struct {
	Path       string `json:"path" jsonschema:"the existing file to edit; relative paths are relative to the working directory"`
	OldStr     string `json:"old_str" jsonschema:"exact text to replace, whitespace included; must occur exactly once unless replace_all"`
	NewStr     string `json:"new_str" jsonschema:"the replacement text (may be empty to delete old_str)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_str instead of requiring exactly one"`
}

// registerStrReplace adds str_replace to s.
func registerStrReplace(s *mcp.Server, e *Env) {
	desc := "Edit an existing UTF-8 text file (at most 10 MiB) by replacing old_str with new_str " +
		"(each at most 1 MiB). old_str must match exactly once, whitespace included, unless " +
		"replace_all is set; if it is not found the closest line is shown. The file is replaced " +
		"atomically with its mode kept, and a unified diff is returned. It cannot create files. "
	if e.Confine {
		desc += confinedNote
	}
	desc += "Prefer over sed/awk"
	mcp.AddTool(s, &mcp.Tool{Name: "str_replace", Description: desc},
		func(_ context.Context, _ *mcp.CallToolRequest, in strReplaceIn) (*mcp.CallToolResult, any, error) {
			return strReplace(e, in), nil, nil
		})
}

// strReplace is str_replace's handler.
func strReplace(e *Env, in strReplaceIn) *mcp.CallToolResult {
	if res := checkEditArgs(in); res != nil {
		return res
	}
	ref, res := resolveFile(e, in.Path)
	if res != nil {
		return res
	}
	ref, orig, res := editTarget(e, ref)
	if res != nil {
		return res
	}
	content, res := readText(ref)
	if res != nil {
		return res
	}
	m, res := findEdit(content, in)
	if res != nil {
		return res
	}
	if size := m.resultSize(content); size > maxTextFileBytes {
		return invalidf("the edit would make %s %d bytes, over the %s limit", in.Path, size, sizeText(maxTextFileBytes))
	}
	updated, at := m.apply(content)
	if err := writeAtomic(ref, orig, updated); err != nil {
		return fileError(err, in.Path)
	}
	return textResult(m.summary(in.Path, len(at)) + unifiedDiff(in.Path, content, updated, at, len(m.old), len(m.new)))
}

// checkEditArgs refuses arguments no file could satisfy.
func checkEditArgs(in strReplaceIn) *mcp.CallToolResult {
	switch {
	case in.OldStr == "":
		return invalidf("old_str is empty; give the exact existing text to replace (str_replace cannot create files or fill empty ones)")
	case len(in.OldStr) > maxEditArgBytes:
		return invalidf("old_str is %d bytes, over the %d-byte (1 MiB) limit", len(in.OldStr), maxEditArgBytes)
	case len(in.NewStr) > maxEditArgBytes:
		return invalidf("new_str is %d bytes, over the %d-byte (1 MiB) limit", len(in.NewStr), maxEditArgBytes)
	case in.OldStr == in.NewStr:
		return invalidf("old_str and new_str are identical; there is nothing to change")
	case strings.ContainsRune(in.NewStr, 0):
		return invalidf("new_str contains a NUL character; str_replace writes UTF-8 text only")
	}
	return nil
}

// match is what findEdit settled on: the strings actually replaced (with
// CRLF endings when the file uses them and old_str did not) and how many.
type match struct {
	old, new string
	all      bool
	crlf     bool
}

// findEdit checks that old_str occurs, and exactly once unless replace_all.
func findEdit(content string, in strReplaceIn) (match, *mcp.CallToolResult) {
	m := match{old: in.OldStr, new: in.NewStr, all: in.ReplaceAll}
	n := countMatches(content, m.old)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(m.old, "\n") && !strings.Contains(m.old, "\r") {
		// The model saw the file through read_file, which hides CRs.
		crlf := match{old: toCRLF(m.old), new: toCRLF(m.new), all: m.all, crlf: true}
		if n = countMatches(content, crlf.old); n > 0 {
			m = crlf
		}
	}
	switch {
	case n == 0:
		return m, notFound(content, in)
	case n > 1 && !m.all:
		return m, invalidf("old_str occurs %d times in %s; provide more surrounding context to make the match unique, or set replace_all to replace every occurrence", n, in.Path)
	}
	return m, nil
}

// countMatches counts the occurrences of sub in s, overlapping ones too:
// "aa" in "aaa" is ambiguous even though a replace would find it once.
func countMatches(s, sub string) int {
	n := 0
	for i := strings.Index(s, sub); i >= 0; n++ {
		j := strings.Index(s[i+1:], sub)
		if j < 0 {
			return n + 1
		}
		i += 1 + j
	}
	return n
}

// toCRLF turns LF line endings into CRLF.
func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// apply performs the replacement and returns the new text and the byte
// offsets in content of the occurrences replaced (for the diff).
func (m match) apply(content string) (string, []int) {
	var b strings.Builder
	var at []int
	rest, base := content, 0
	for {
		i := strings.Index(rest, m.old)
		if i < 0 || (!m.all && len(at) == 1) {
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(m.new)
		at = append(at, base+i)
		rest, base = rest[i+len(m.old):], base+i+len(m.old)
	}
	b.WriteString(rest)
	return b.String(), at
}

// resultSize is the size of the edited text, known before building it so
// that an edit past the cap costs no memory.
func (m match) resultSize(content string) int {
	n := 1
	if m.all {
		n = strings.Count(content, m.old) // the occurrences apply replaces
	}
	return len(content) + n*(len(m.new)-len(m.old))
}

// summary is the first line of a successful edit's reply.
func (m match) summary(shown string, n int) string {
	s := fmt.Sprintf("Replaced %d occurrence", n)
	if n != 1 {
		s += "s"
	}
	s += " in " + shown
	if m.crlf {
		s += " (matched with the file's CRLF line endings)"
	}
	return s + ".\n\n"
}
