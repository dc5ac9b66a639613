package sanitize

import (
	"strings"
	"unicode"
)

// cleanRunes removes characters that a reader cannot see but a model still
// reads, and turns every kind of line break into '\n' so that later
// line-based rules, and Wrap's marker lines, see the lines the model sees.
// Unusual spaces (no-break, ideographic, braille blank) become ' '.
func cleanRunes(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case isLineBreak(r):
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte('\t')
		case isInvisible(r):
			// dropped
		case r == ' ' || r == '\u2800' || unicode.Is(unicode.Zs, r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isLineBreak reports whether r ends a line in some renderer or tokenizer.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// isInvisible reports whether r draws as nothing, or as nothing a person
// would notice, and so could hide or reorder text. Categories Cc and Cf
// cover NUL and escapes, zero-width characters (U+200B–U+200D, U+2060,
// U+FEFF), bidi controls (U+200E, U+200F, U+061C, U+202A–U+202E,
// U+2066–U+2069), the soft hyphen and the tag characters used for "ASCII
// smuggling". The rest are marks and letters that fonts draw blank.
// Newline and tab are Cc too: callers keep them before asking.
func isInvisible(r rune) bool {
	if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
		return true
	}
	switch {
	case r >= 0xE0000 && r <= 0xE007F: // tag block, assigned or not
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		// Variation selectors: an emoji loses only its colour
		// presentation, and runs of them can smuggle bytes.
		return true
	case r >= 0x180B && r <= 0x180F: // Mongolian variation selectors
		return true
	}
	switch r {
	case 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0: // grapheme joiner, Hangul fillers
		return true
	}
	return false
}

// isCJK reports whether r belongs to a script written without spaces
// between words, where an '@' or a number is routinely glued to the text
// around it.
func isCJK(r rune) bool {
	return r == 0x30FC || // katakana long vowel mark, script Common
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
			unicode.Hangul, unicode.Bopomofo)
}

// isWordRune reports whether r, right before an '@' or a number, makes it
// part of a longer word (alice@host, v1.2, x415) rather than the start of a
// mention or phone number. CJK characters do not, because CJK text puts
// no space before a mention or a number.
func isWordRune(r rune) bool {
	if r == '_' {
		return true
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !isCJK(r)
}

// isASCIIAlnum reports whether b is an ASCII letter or digit.
func isASCIIAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower can change lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
