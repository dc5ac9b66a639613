package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// hintLines is how many lines of the file the not-found hint searches:
	// enough for the usual case, bounded so a big file costs nothing.
	hintLines = 200
	// hintBytes cuts both sides of a comparison, bounding its cost.
	hintBytes = 512
	// hintMinScore is the similarity below which no line is suggested.
	hintMinScore = 0.6
)

// notFound explains a missing old_str, pointing at the file's line most
// like the first line of old_str: usually the model remembered it with
// different whitespace or an outdated detail.
func notFound(content string, in strReplaceIn) *mcp.CallToolResult {
	want := firstTextLine(in.OldStr)
	n, got, score := closestLine(content, want)
	msg := fmt.Sprintf("old_str was not found in %s.", in.Path)
	switch {
	case score < hintMinScore:
		msg += fmt.Sprintf(" No line among its first %d resembles the first line of old_str.", hintLines)
	case got == want:
		msg += fmt.Sprintf(" Line %d matches the first line of old_str, so the difference is further on:\n  line %d: %q", n, n, got)
	default:
		msg += fmt.Sprintf(" The closest line to the first line of old_str is line %d (%.0f%% similar):\n  found:    %q\n  expected: %q",
			n, score*100, got, want)
	}
	return invalidf("%s\nRead the file again (read_file) and copy the text exactly, whitespace included.", msg)
}

// firstTextLine is the first line of s that is not blank: a leading
// newline in old_str would otherwise compare an empty line.
func firstTextLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSuffix(l, "\r")
		}
	}
	return s
}

// closestLine finds the line among the first hintLines of content most
// similar to want: its 1-based number, text and score.
func closestLine(content, want string) (n int, text string, score float64) {
	w := []rune(cutBytes(want, hintBytes))
	rest := content
	for i := 1; i <= hintLines && rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if s := similarity(w, []rune(cutBytes(line, hintBytes))); s > score {
			n, text, score = i, line, s
		}
	}
	return n, text, score
}

// cutBytes shortens s to at most n bytes without splitting a rune.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// similarity is 1 - (edit distance / length of the longer), in runes:
// 1 for equal strings, 0 for nothing in common.
func similarity(a, b []rune) float64 {
	longer := max(len(a), len(b))
	if longer == 0 {
		return 1
	}
	// The length difference alone bounds the score: skip hopeless lines.
	if float64(longer-min(len(a), len(b)))/float64(longer) > 1-hintMinScore {
		return 0
	}
	return 1 - float64(editDistance(a, b))/float64(longer)
}

// editDistance is the Levenshtein distance, with two rows of memory.
func editDistance(a, b []rune) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
