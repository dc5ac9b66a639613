package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultReadLimit is how many lines read_file returns when not told.
const defaultReadLimit = 2000

// readFileIn is read_file's arguments. Limit is a pointer so that an
// explicit 0 (count the lines, show none) differs from "not given".
type readFileIn struct {
	Path   string `json:"path" jsonschema:"the file to read; relative paths are relative to the working directory"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based number of the first line to show (default 1; 0 also means 1)"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"how many lines to show at most (default 2000; 0 shows none and only counts them)"`
}

// registerReadFile adds read_file to s.
func registerReadFile(s *mcp.Server, e *Env) {
	desc := "Read a UTF-8 text file (at most 10 MiB) as numbered lines \"{n}:{text}\" under a header " +
		"\"path (lines a-b of total)\". Shows up to 2000 lines from offset (1-based); when more " +
		"follow, a footer says which offset continues. CRLF endings are shown without the CR. " +
		"Binary files are refused. "
	if e.Confine {
		desc += confinedNote
	}
	desc += "Prefer over cat/head/tail"
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: desc},
		func(_ context.Context, _ *mcp.CallToolRequest, in readFileIn) (*mcp.CallToolResult, any, error) {
			return readFile(e, in), nil, nil
		})
}

// readFile is read_file's handler.
func readFile(e *Env, in readFileIn) *mcp.CallToolResult {
	first, limit, res := readWindow(in)
	if res != nil {
		return res
	}
	ref, res := resolveFile(e, in.Path)
	if res != nil {
		return res
	}
	f, res := openRegular(ref, maxTextFileBytes)
	if res != nil {
		return res
	}
	defer f.Close()
	w := &lineWindow{first: first, limit: limit}
	// The extra byte shows a file that grew past the cap after the stat.
	if err := textLines(io.LimitReader(f, maxTextFileBytes+1), w.add); err != nil {
		return textError(err, in.Path)
	}
	if w.bytes > maxTextFileBytes {
		return invalidf("%s grew over the %s limit while being read", in.Path, sizeText(maxTextFileBytes))
	}
	return w.result(in.Path)
}

// readWindow validates offset and limit and applies their defaults.
func readWindow(in readFileIn) (first, limit int, res *mcp.CallToolResult) {
	first, limit = max(in.Offset, 1), defaultReadLimit
	if in.Offset < 0 {
		return 0, 0, invalidf("offset is %d; it is a 1-based line number (or 0 for the start)", in.Offset)
	}
	if in.Limit != nil {
		limit = *in.Limit
	}
	if limit < 0 {
		return 0, 0, invalidf("limit is %d; it must be 0 or more", limit)
	}
	return first, limit, nil
}

// textError explains why a file was not read as text.
func textError(err error, shown string) *mcp.CallToolResult {
	if errors.Is(err, errNotText) {
		return invalidf("%s is not UTF-8 text (%v); only UTF-8 text files can be read or edited", shown, err)
	}
	return fileError(err, shown)
}

// lineWindow collects the lines first..first+limit-1 of a stream and
// counts the rest; only the window is kept.
type lineWindow struct {
	first, limit int
	total        int   // lines seen so far
	bytes        int64 // bytes seen so far
	body         strings.Builder
}

// add takes one piece of a line from textLines.
func (w *lineWindow) add(piece []byte, cont bool) {
	w.bytes += int64(len(piece))
	if !cont {
		w.total++
	}
	// Differences, not sums: a huge offset or limit must not overflow.
	if w.total < w.first || w.total-w.first >= w.limit {
		return
	}
	if !cont {
		w.body.WriteString(strconv.Itoa(w.total))
		w.body.WriteByte(':')
	}
	if line, ok := bytes.CutSuffix(piece, []byte("\n")); ok {
		line, _ = bytes.CutSuffix(line, []byte("\r"))
		w.body.Write(line)
		w.body.WriteByte('\n')
		return
	}
	w.body.Write(piece)
}

// result renders the window, or one of the texts for an empty file, an
// offset past the end, or limit 0.
func (w *lineWindow) result(shown string) *mcp.CallToolResult {
	switch {
	case w.total == 0:
		return textResult(fmt.Sprintf("%s is empty (0 lines).", shown))
	case w.limit == 0:
		return textResult(fmt.Sprintf("%s has %d lines; limit=0 shows none of them.", shown, w.total))
	case w.first > w.total:
		return invalidf("offset %d is past the end of %s, which has %d lines", w.first, shown, w.total)
	}
	last := w.total
	if w.total-w.first >= w.limit {
		last = w.first + w.limit - 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (lines %d-%d of %d)\n", shown, w.first, last, w.total)
	b.WriteString(w.body.String())
	if !strings.HasSuffix(w.body.String(), "\n") {
		b.WriteByte('\n') // last line of a file without a final newline
	}
	if last < w.total {
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; use offset=%d to continue]\n", w.first, last, w.total, last+1)
	}
	return textResult(b.String())
}
