package sanitize

import (
	"regexp"
	"strings"
)

const (
	// maxPasses bounds stripMarkup's repetitions; real HTML settles in two.
	maxPasses = 8
	// maxTag bounds how far a tag is looked for, which keeps a message full
	// of unclosed '<a "' linear in practice instead of quadratic.
	maxTag = 4096
)

// rawText elements are removed with their content: browsers never show it.
var rawText = map[string]bool{"script": true, "style": true, "template": true}

// blockTags become a line break, so that "<p>a</p><p>b</p>" reads as two
// lines rather than "ab".
var blockTags = map[string]bool{
	"br": true, "p": true, "div": true, "li": true, "tr": true, "hr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "table": true, "pre": true, "blockquote": true,
}

// formatTags are HTML elements common in chat formatting. They are markup
// even when glued to a word ("a<br>b"), unlike an unknown name there,
// which is taken for a type argument. Names that double as common type
// names (object, map, option, data) are left out on purpose.
var formatTags = map[string]bool{
	"a": true, "b": true, "i": true, "u": true, "s": true, "em": true,
	"strong": true, "span": true, "font": true, "small": true, "big": true,
	"sub": true, "sup": true, "mark": true, "del": true, "ins": true,
	"strike": true, "img": true, "td": true, "th": true, "iframe": true,
	"center": true, "details": true, "summary": true, "marquee": true,
}

// autolinkRE matches a Markdown autolink such as <https://example.com>,
// whose URL is kept.
var autolinkRE = regexp.MustCompile(`^<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>`)

// stripMarkup removes HTML from prose. It repeats until nothing changes,
// because removing one tag can splice the halves of another together
// ("<<b>script>"); input that still changes after maxPasses is adversarial
// and loses every '<'.
func stripMarkup(s string) string {
	for range maxPasses {
		out := stripOnce(s)
		if out == s {
			return out
		}
		s = out
	}
	return strings.ReplaceAll(s, "<", "")
}

// stripOnce makes one left-to-right pass over s.
func stripOnce(s string) string {
	var b strings.Builder
	lastGT := strings.LastIndexByte(s, '>')
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		repl, n := markupAt(s, i, lastGT)
		b.WriteString(repl)
		i += n
	}
	return b.String()
}

// markupAt looks at the '<' at s[i] and returns what replaces it and how
// many bytes that consumes; ("<", 1) means the '<' is ordinary text.
// lastGT, the offset of the last '>' in s, tells when no tag can close.
func markupAt(s string, i, lastGT int) (string, int) {
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return "", until(rest, 4, "-->")
	case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "<?"):
		return "", until(rest, 2, ">") // doctype, CDATA, processing instruction
	}
	if m := autolinkRE.FindStringSubmatch(rest); m != nil {
		return m[1], len(m[0])
	}
	t, ok := parseTag(rest, min(len(rest), maxTag, lastGT-i+1))
	switch {
	case !ok:
		return "<", 1
	case rawText[t.name] && !t.closing:
		if !t.complete {
			return "", len(rest) // a browser would hide the rest too
		}
		return "", t.end + closeRaw(rest[t.end:], t.name)
	case !t.complete:
		// Unclosed, like "if a<b && c": text. Only raw-text elements
		// could hide anything, and they are handled above.
		return "<", 1
	case !t.closing && !t.attrs && i > 0 && isIdentByte(s[i-1]) &&
		!blockTags[t.name] && !formatTags[t.name]:
		// Glued to an identifier with no attributes: a type argument
		// such as Vec<String> or vector<int>, not HTML.
		return "<", 1
	case blockTags[t.name]:
		return "\n", t.end
	}
	return "", t.end
}

// until returns the length of s up to and including the first end found at
// or after skip, or all of s when there is none: an unclosed comment hides
// the rest of an HTML page, so it goes too.
func until(s string, skip int, end string) int {
	if k := strings.Index(s[skip:], end); k >= 0 {
		return skip + k + len(end)
	}
	return len(s)
}

// closeRaw returns the length of s up to and including the end tag of the
// raw-text element name, or all of s when it is never closed.
func closeRaw(s, name string) int {
	k := strings.Index(asciiLower(s), "</"+name)
	if k < 0 {
		return len(s)
	}
	return k + until(s[k:], 2+len(name), ">")
}

// tag is what parseTag learnt about a tag.
type tag struct {
	name     string // lower-case
	closing  bool   // </name>
	attrs    bool   // something other than blanks and '/' after the name
	complete bool   // its '>' was found; end is then its length
	end      int
}

// parseTag parses the tag that s starts with, looking for its end in the
// first limit bytes. ok is false when s does not start like a tag ('<', an
// optional '/', an ASCII letter, a name, then a blank, '/', '>' or the end).
func parseTag(s string, limit int) (t tag, ok bool) {
	i := 1
	if i < len(s) && s[i] == '/' {
		t.closing = true
		i++
	}
	if i >= len(s) || !isASCIILetter(s[i]) {
		return t, false
	}
	start := i
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	t.name = asciiLower(s[start:i])
	if i < len(s) && s[i] != '>' && s[i] != '/' && !isBlank(s[i]) {
		return t, false
	}
	// Quote-aware, so that a '>' inside an attribute value does not end
	// the tag and leave the rest of the value behind as text.
	var quote byte
	for ; i < limit; i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote, t.attrs = c, true
		case c == '>':
			t.complete, t.end = true, i+1
			return t, true
		case !isBlank(c) && c != '/':
			t.attrs = true
		}
	}
	return t, true
}

// isASCIILetter reports whether b is an ASCII letter.
func isASCIILetter(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// isNameByte reports whether b may continue a tag name.
func isNameByte(b byte) bool {
	return isASCIIAlnum(b) || b == '-' || b == '_' || b == ':' || b == '.'
}

// isIdentByte reports whether b may end an identifier in code.
func isIdentByte(b byte) bool {
	return isASCIIAlnum(b) || b == '_'
}

// isBlank reports whether b is HTML whitespace.
func isBlank(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}
