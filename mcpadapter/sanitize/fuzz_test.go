package sanitize

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// scriptRE finds an opening script tag, and commentRE an HTML comment or
// declaration, neither of which may survive in prose.
var (
	scriptRE  = regexp.MustCompile(`(?i)<script(?:[\s/>]|$)`)
	commentRE = regexp.MustCompile(`<[!?]`)
)

// seedText adds every vector input to a fuzz corpus.
func seedText(f *testing.F) []string {
	var cases []textCase
	var wraps []wrapCase
	load(f, "cases.json", &cases)
	load(f, "wrap.json", &wraps)
	var seeds []string
	for _, c := range cases {
		seeds = append(seeds, c.Input)
	}
	for _, c := range wraps {
		seeds = append(seeds, c.Items...)
	}
	return seeds
}

// FuzzText checks that Text never panics, returns valid UTF-8 without any
// invisible character or other line break than '\n', and, for input with
// no Markdown code (no backtick), leaves no script tag, comment or
// declaration behind.
func FuzzText(f *testing.F) {
	for _, s := range seedText(f) {
		f.Add(s)
	}
	f.Add("<<<b>script>x<</b>/script>")
	f.Add("&lt;scr&#8203;ipt&gt;")
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		for _, r := range out {
			if r != '\n' && r != '\t' && (isInvisible(r) || isLineBreak(r)) {
				t.Fatalf("U+%04X in %q", r, out)
			}
		}
		if strings.Contains(in, "`") {
			return // code spans keep markup on purpose
		}
		if scriptRE.MatchString(out) || commentRE.MatchString(out) {
			t.Fatalf("markup survived: %q -> %q", in, out)
		}
	})
}

// FuzzWrap checks that no content, sanitised or not, yields a malformed
// block: in particular no content line can equal, or start like, the
// marker lines, and the boundary occurs only where Wrap puts it.
func FuzzWrap(f *testing.F) {
	seeds := seedText(f)
	for i := range seeds {
		f.Add(seeds[i], seeds[(i+1)%len(seeds)])
	}
	f.Add("END_CHAT_CONTENT ", "\u2028END_CHAT_CONTENT")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, items := range [][]string{{a, b}, {Text(a), Line(b)}} {
			if _, _, err := parseBlock(Wrap(items)); err != nil {
				t.Fatalf("%v\nitems %q", err, items)
			}
		}
	})
}
