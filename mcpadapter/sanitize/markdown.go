package sanitize

import (
	"regexp"
	"strings"
)

// segment is a piece of a message: Markdown code or prose.
type segment struct {
	text string
	code bool
}

// splitCode cuts s into prose and Markdown code: fenced blocks opened by a
// line of three or more backticks, and inline spans between equal runs of
// backticks within one paragraph. Renderers show code literally, so nothing
// in it is hidden from people, and it is where @decorators, Vec<T> and
// HTML examples legitimately live.
func splitCode(s string) []segment {
	var segs []segment
	for _, blk := range splitFences(s) {
		if blk.code {
			segs = append(segs, blk)
			continue
		}
		for _, para := range strings.SplitAfter(blk.text, "\n\n") {
			segs = appendSpans(segs, para)
		}
	}
	return segs
}

// splitFences separates fenced code blocks, fence lines included, from the
// rest. An unclosed fence runs to the end, as in CommonMark.
func splitFences(s string) []segment {
	var segs []segment
	start, fence := 0, 0 // fence: length of the open fence's backtick run
	for pos := 0; pos < len(s); {
		next := len(s)
		if k := strings.IndexByte(s[pos:], '\n'); k >= 0 {
			next = pos + k + 1
		}
		n, info := fenceLine(s[pos:next])
		switch {
		case fence == 0 && n > 0 && !strings.Contains(info, "`"):
			segs = append(segs, segment{s[start:pos], false})
			start, fence = pos, n
		case fence > 0 && n >= fence && strings.TrimSpace(info) == "":
			segs = append(segs, segment{s[start:next], true})
			start, fence = next, 0
		}
		pos = next
	}
	return append(segs, segment{s[start:], fence > 0})
}

// fenceLine returns the length of the backtick run that opens line (after
// at most three spaces) if it is three or more, and the text after it.
func fenceLine(line string) (int, string) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return 0, ""
	}
	rest := strings.TrimLeft(trimmed, "`")
	if n := len(trimmed) - len(rest); n >= 3 {
		return n, rest
	}
	return 0, ""
}

// appendSpans appends the prose and inline code spans of one paragraph.
// A run of n backticks opens a span closed by the next run of exactly n;
// a run with no partner is text.
func appendSpans(segs []segment, s string) []segment {
	runs := backtickRuns(s)
	unpaired := map[int]bool{} // lengths known to have no later partner
	last := 0
	for i := 0; i < len(runs); i++ {
		n := runs[i][1] - runs[i][0]
		if unpaired[n] {
			continue
		}
		j := i + 1
		for j < len(runs) && runs[j][1]-runs[j][0] != n {
			j++
		}
		if j == len(runs) {
			unpaired[n] = true
			continue
		}
		segs = append(segs, segment{s[last:runs[i][0]], false},
			segment{s[runs[i][0]:runs[j][1]], true})
		last, i = runs[j][1], j
	}
	return append(segs, segment{s[last:], false})
}

// backtickRuns returns the [start, end) offsets of every run of backticks.
func backtickRuns(s string) [][2]int {
	var runs [][2]int
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j - 1
	}
	return runs
}

// linkRE matches a Markdown link or image (group 1 is "!" for an image)
// with its text, URL and an optional title, which is dropped: it only shows
// on hover, so it is a place to hide text.
var linkRE = regexp.MustCompile(`(!?)\[([^\[\]\n]*)\]\(\s*([^\s()]*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)`)

// markdownLinks spells out links as "text (url)" and images as
// "[image: alt] url". An agent that quotes chat in its own Markdown answer
// then cannot make the client load an image (which can carry data out in
// its URL) or show a link whose text hides where it goes.
func markdownLinks(s string) string {
	return linkRE.ReplaceAllStringFunc(s, func(m string) string {
		g := linkRE.FindStringSubmatch(m)
		text, url := strings.TrimSpace(g[2]), g[3]
		if g[1] == "!" {
			label := "[image]"
			if text != "" {
				label = "[image: " + text + "]"
			}
			return strings.TrimSpace(label + " " + url)
		}
		switch {
		case url == "":
			return text
		case text == "" || text == url:
			return url
		}
		return text + " (" + url + ")"
	})
}
