package tools

import (
	"fmt"
	"strings"
)

const (
	// maxDiffBytes caps the diff str_replace returns; a replace_all over a
	// big file would otherwise echo the whole file back to the model.
	maxDiffBytes = 64 << 10
	// diffContext is the number of unchanged lines around each change.
	diffContext = 3
)

// region is one changed run of whole lines of the old text.
type region struct {
	s, e    int    // byte range in the old text, on line boundaries
	text    string // what old[s:e] became
	line    int    // 1-based line number of s in the old text
	newLine int    // 1-based line number of text in the new text
}

// unifiedDiff renders the change from old to updated. Because the places
// replaced (at, each oldLen bytes, now newLen) are known, the diff follows
// from them in one pass: no general diff algorithm, whose cost could blow
// up on a replace_all over a 10 MiB file.
func unifiedDiff(shown, old, updated string, at []int, oldLen, newLen int) string {
	regs := diffRegions(old, updated, at, oldLen, newLen)
	w := &diffWriter{}
	w.put("--- " + shown + "\n+++ " + shown + "\n")
	for i := 0; i < len(regs) && !w.full; {
		j := i + 1
		// Changes at most 2×context lines apart share a hunk.
		for j < len(regs) && strings.Count(old[regs[j-1].e:regs[j].s], "\n") <= 2*diffContext {
			j++
		}
		writeHunk(w, old, regs[i:j])
		i = j
	}
	return w.String()
}

// diffRegions widens each replaced place to whole lines, merges places
// that share a line, and trims lines that did not change.
func diffRegions(old, updated string, at []int, oldLen, newLen int) []region {
	d := newLen - oldLen
	var regs []region
	line, prev, shift := 1, 0, 0
	for k := 0; k < len(at); {
		s, e := strings.LastIndexByte(old[:at[k]], '\n')+1, lineEnd(old, at[k]+oldLen)
		e, m, text := regionEnd(old, updated, at, k, s, e, oldLen, d)
		line += strings.Count(old[prev:s], "\n")
		r := region{s: s, e: e, text: text, line: line, newLine: line + shift}
		shift += strings.Count(text, "\n") - strings.Count(old[s:e], "\n")
		prev, k = s, m
		if r = trimRegion(old, r); r.s < r.e || r.text != "" {
			regs = append(regs, r)
		}
	}
	return regs
}

// regionEnd grows the region [s, e) of occurrence k until it also ends a
// line of the new text: it takes in the occurrences that share its lines,
// and the next line whenever the replacement removed a newline (joining
// lines). It returns the region's end, the index after its last
// occurrence, and its new text; d is how far each replacement moves the
// text after it.
func regionEnd(old, updated string, at []int, k, s, e, oldLen, d int) (int, int, string) {
	m := k + 1
	for {
		for ; m < len(at) && at[m] < e; m++ {
			e = lineEnd(old, at[m]+oldLen)
		}
		text := updated[s+d*k : e+d*m]
		if e == len(old) || text == "" || strings.HasSuffix(text, "\n") {
			return e, m, text
		}
		e = lineEnd(old, e+1)
	}
}

// lineEnd is the end of the line holding the byte before end.
func lineEnd(s string, end int) int {
	if end > 0 && s[end-1] == '\n' {
		return end
	}
	if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
		return end + i + 1
	}
	return len(s)
}

// trimRegion drops the leading and trailing lines a replacement left as
// they were, so that they show as context rather than as -/+ pairs.
func trimRegion(old string, r region) region {
	for {
		a, b := firstLine(old[r.s:r.e]), firstLine(r.text)
		if a == "" || a != b || !strings.HasSuffix(a, "\n") {
			break
		}
		r.s, r.text, r.line, r.newLine = r.s+len(a), r.text[len(a):], r.line+1, r.newLine+1
	}
	for {
		a, b := lastLine(old[r.s:r.e]), lastLine(r.text)
		if a == "" || a != b {
			return r
		}
		r.e, r.text = r.e-len(a), r.text[:len(r.text)-len(b)]
	}
}

// firstLine is s's first line with its newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

// lastLine is s's last line with its newline, if any.
func lastLine(s string) string {
	return s[strings.LastIndexByte(strings.TrimSuffix(s, "\n"), '\n')+1:]
}

// lineCount counts lines, a final one without a newline included.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// writeHunk writes one hunk: its regions with up to diffContext lines of
// context before, between and after them.
func writeHunk(w *diffWriter, old string, regs []region) {
	first, last := regs[0], regs[len(regs)-1]
	from, to := contextBefore(old, first.s), contextAfter(old, last.e)
	nb := strings.Count(old[from:first.s], "\n")
	oldN := lineCount(old[from:to])
	newN := oldN
	for _, r := range regs {
		newN += lineCount(r.text) - lineCount(old[r.s:r.e])
	}
	w.put(fmt.Sprintf("@@ -%s +%s @@\n", hunkRange(first.line-nb, oldN), hunkRange(first.newLine-nb, newN)))
	w.lines(' ', old[from:first.s])
	for i, r := range regs {
		w.lines('-', old[r.s:r.e])
		w.lines('+', r.text)
		if i+1 < len(regs) {
			w.lines(' ', old[r.e:regs[i+1].s])
		}
	}
	w.lines(' ', old[last.e:to])
}

// hunkRange is "start,count"; an empty range names the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// contextBefore is the start of the diffContext lines before byte s.
func contextBefore(old string, s int) int {
	for i := 0; i < diffContext && s > 0; i++ {
		s = strings.LastIndexByte(old[:s-1], '\n') + 1
	}
	return s
}

// contextAfter is the end of the diffContext lines after byte e.
func contextAfter(old string, e int) int {
	for i := 0; i < diffContext && e < len(old); i++ {
		e = lineEnd(old, e+1)
	}
	return e
}

// diffWriter collects diff lines up to maxDiffBytes, whole lines only.
type diffWriter struct {
	b    strings.Builder
	full bool
}

// lines writes each line of text with prefix.
func (w *diffWriter) lines(prefix byte, text string) {
	for text != "" && !w.full {
		line, rest, nl := strings.Cut(text, "\n")
		w.put(string(prefix) + line + "\n")
		if !nl {
			w.put("\\ No newline at end of file\n")
		}
		text = rest
	}
}

// put writes s unless that would pass the cap, which ends the diff.
func (w *diffWriter) put(s string) {
	if !w.full && w.b.Len()+len(s) > maxDiffBytes {
		w.full = true
	}
	if !w.full {
		w.b.WriteString(s)
	}
}

// String is the diff, marked when it was cut.
func (w *diffWriter) String() string {
	if w.full {
		return w.b.String() + "[diff truncated]\n"
	}
	return w.b.String()
}
