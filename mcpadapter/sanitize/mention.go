package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// mentionText replaces every mention.
	mentionText = "@member"
	// atSigns can start a mention: CJK input methods type the fullwidth
	// and small forms.
	atSigns = "@\uFF20\uFE6B"
)

// mentions replaces @name mentions in prose with @member, so that the agent
// neither learns members' handles nor reads a message as addressed to it.
//
// An '@' (or its fullwidth or small form) starts a mention unless it follows a letter or digit (foo@bar,
// user@host), except that CJK characters do not count: CJK text puts no
// space before a mention (请@张三). The name is what mentionName takes; an
// '@' followed by no name ("@@ -1 +1 @@") is left alone.
func mentions(s string) string {
	if !strings.ContainsAny(s, atSigns) {
		return s
	}
	var b strings.Builder
	prev := ' '
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if strings.ContainsRune(atSigns, r) && !isWordRune(prev) {
			if n, ok := mentionName(s[i+size:]); ok {
				b.WriteString(mentionText)
				i += size + n
				prev = 'r' // last letter of "@member"
				continue
			}
		}
		b.WriteRune(r)
		i += size
		prev = r
	}
	return b.String()
}

// mentionName returns the byte length of the name at the start of s, which
// follows an '@', and whether it is a mention at all.
//
// A name starts with a letter or '_' and runs over letters, digits, marks,
// '_', '-' and '.', but never mixes CJK with other characters: it ends
// where one kind gives way to the other, so "@alice看一下" keeps 看一下.
// A CJK name has no other end short of a space or punctuation: CJK text
// cannot be split into words without a dictionary, and taking too much
// ("请@张三看一下" becomes "请@member") loses a few words where taking too
// little would leak part of a name. Chat clients put a space after a
// mention they insert, so this is rare. Trailing '.' and '-' are sentence
// punctuation, not name. A name followed by '/' is a scoped package or a
// path (@types/node, @modelcontextprotocol/sdk), not a mention.
func mentionName(s string) (int, bool) {
	first, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(first) && first != '_' {
		return 0, false
	}
	cjk := isCJK(first)
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !isNameRune(r) || isCJK(r) != cjk {
			break
		}
		n += size
	}
	n = len(strings.TrimRight(s[:n], ".-"))
	if n < len(s) && s[n] == '/' {
		return 0, false
	}
	return n, true
}

// isNameRune reports whether r may continue a mention name.
func isNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
		r == '_' || r == '-' || r == '.'
}
