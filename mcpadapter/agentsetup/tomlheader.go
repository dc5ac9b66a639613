package agentsetup

import (
	"strconv"
	"strings"
)

// parseHeader recognises a TOML table header line, "[a.b]" or "[[a.b]]",
// with optional spaces, quoted key parts and a trailing comment, and
// returns its key path. It looks at one line only, so a header-like line
// inside a multi-line string fools it; MergeTOML's after-the-fact check
// catches the edits that would follow from that.
func parseHeader(line string) ([]string, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	closing := "]"
	if strings.HasPrefix(s, "[[") {
		closing = "]]"
	}
	path, rest, ok := parseKeyPath(s[len(closing):])
	if !ok || !strings.HasPrefix(rest, closing) {
		return nil, false
	}
	rest = strings.TrimSpace(rest[len(closing):])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false
	}
	return path, true
}

// parseKeyPath reads a dotted key (bare, "basic" or 'literal' parts) from
// the start of s and returns the parts and what follows the key.
func parseKeyPath(s string) (path []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		part, after, ok := parseKeyPart(s)
		if !ok {
			return nil, "", false
		}
		path = append(path, part)
		s = strings.TrimLeft(after, " \t")
		if !strings.HasPrefix(s, ".") {
			return path, s, true
		}
		s = s[1:]
	}
}

func parseKeyPart(s string) (part, rest string, ok bool) {
	switch {
	case strings.HasPrefix(s, `"`):
		end := closingQuote(s)
		if end < 0 {
			return "", "", false
		}
		// TOML's basic-string escapes are a subset of Go's for the
		// characters a key holds in practice.
		if u, err := strconv.Unquote(s[:end+1]); err == nil {
			return u, s[end+1:], true
		}
		return s[1:end], s[end+1:], true
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : end+1], s[end+2:], true
	}
	n := strings.IndexFunc(s, func(r rune) bool { return !isBareKeyRune(r) })
	if n < 0 {
		n = len(s)
	}
	if n == 0 {
		return "", "", false
	}
	return s[:n], s[n:], true
}

// closingQuote is the index of the quote ending the basic string that
// starts at s[0], skipping backslash escapes, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func isBareKeyRune(r rune) bool {
	return r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}
