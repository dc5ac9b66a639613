package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Output limits of the shell tool, per stream.
const (
	// captureMax bounds what is kept of a stream (in its artifact); the
	// rest is read and discarded so that the child never blocks on a full
	// pipe.
	captureMax = 10 << 20
	// modelMaxBytes and modelMaxLines bound the text returned whole; a
	// longer stream is returned as its last tailBytes instead.
	modelMaxBytes = 50 << 10
	modelMaxLines = 2000
	tailBytes     = 8 << 10
)

// capture receives one stream of a shell call. Output that fits the model
// limits stays in memory and never touches the disk; once a stream
// outgrows them it spills to its artifact file (at most captureMax bytes),
// while a rolling tail keeps the true end of the stream for the model.
type capture struct {
	name     string // "stdout" or "stderr"
	path     string // artifact path; "" when there is no session directory
	head     []byte // the whole stream until it spills
	tail     []byte // the last tailBytes+1 bytes (+1: was the cut at a line start?)
	spill    bool   // the stream outgrew the model limits
	file     *os.File
	fileErr  error
	saved    int64 // bytes written to the artifact
	total    int64 // bytes the command wrote
	newlines int64
	last     byte // the last byte seen, to count an unterminated last line
}

// Write records p; it never fails, so the reader keeps draining the pipe
// even when the artifact cannot be written.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 {
		c.last = p[len(p)-1]
	}
	c.tail = append(c.tail, p...)
	if keep := tailBytes + 1; len(c.tail) > 4*keep {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-keep:]...)
	}
	if !c.spill {
		c.head = append(c.head, p...)
		if c.fits() {
			return n, nil
		}
		p, c.head, c.spill = c.head, nil, true // the head goes to the file first
		c.open()
	}
	c.save(p)
	return n, nil
}

// lines counts lines the way a reader would: a last line without a
// newline still counts.
func (c *capture) lines() int64 {
	if c.total > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// fits says whether the stream so far can be returned whole.
func (c *capture) fits() bool {
	return c.total <= modelMaxBytes && c.lines() <= modelMaxLines
}

// open creates the artifact file (private: output may hold anything).
func (c *capture) open() {
	if c.path == "" {
		c.fileErr = fmt.Errorf("no session directory")
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		c.fileErr = err
		return
	}
	c.file, c.fileErr = os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// save appends p to the artifact, up to captureMax bytes.
func (c *capture) save(p []byte) {
	if c.file == nil {
		return
	}
	n := min(int64(len(p)), captureMax-c.saved)
	if n <= 0 {
		return
	}
	if _, err := c.file.Write(p[:n]); err != nil {
		c.fileErr = err
		_ = c.file.Close()
		c.file = nil
		return
	}
	c.saved += n
}

// finish closes the artifact and returns the text for the model, whether
// it was truncated, and the artifact path ("" if none was saved).
func (c *capture) finish() (text string, truncated bool, artifact string) {
	if c.file != nil {
		if err := c.file.Close(); err != nil && c.fileErr == nil {
			c.fileErr = err
		}
		c.file = nil
	}
	if !c.spill {
		return strings.ToValidUTF8(string(c.head), "\uFFFD"), false, ""
	}
	if c.fileErr == nil {
		artifact = c.path
	}
	shown := c.shownTail()
	return c.notice(len(shown), artifact) + "\n" + shown, true, artifact
}

// shownTail is the end of the stream, starting at a line boundary when
// one is near and never inside a UTF-8 sequence.
func (c *capture) shownTail() string {
	t := c.tail
	cutAtLine := len(t) > tailBytes && t[len(t)-tailBytes-1] == '\n'
	t = t[max(0, len(t)-tailBytes):]
	if !cutAtLine {
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)/2 {
			t = t[i+1:]
		}
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return strings.ToValidUTF8(string(t), "\uFFFD")
}

// notice is the first line of a truncated stream's text.
func (c *capture) notice(shown int, artifact string) string {
	s := fmt.Sprintf("[%s truncated: showing the last %d bytes of %d bytes (%d lines);", c.name, shown, c.total, c.lines())
	switch {
	case artifact == "":
		return s + fmt.Sprintf(" the full output could not be saved: %v]", c.fileErr)
	case c.saved < c.total:
		return s + fmt.Sprintf(" only the first %d bytes (the capture limit) were saved, to %s]", c.saved, artifact)
	}
	return s + fmt.Sprintf(" full output in %s]", artifact)
}
