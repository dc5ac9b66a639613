package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// feedCapture writes data to c in chunks of n bytes, as a pipe would deliver it.
func feedCapture(c *capture, data []byte, n int) {
	for len(data) > 0 {
		k := min(n, len(data))
		c.Write(data[:k])
		data = data[k:]
	}
}

func TestCaptureLimits(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name      string
		data      []byte
		truncated bool
		saved     int64
	}{
		{"empty", nil, false, 0},
		{"50 KB", bytes.Repeat([]byte("a"), modelMaxBytes), false, 0},
		{"50 KB + 1", bytes.Repeat([]byte("a"), modelMaxBytes+1), true, modelMaxBytes + 1},
		{"2000 lines", bytes.Repeat([]byte("x\n"), modelMaxLines), false, 0},
		{"2000 lines + unterminated", append(bytes.Repeat([]byte("x\n"), modelMaxLines), 'y'), true, 2*modelMaxLines + 1},
		{"10 MB", bytes.Repeat([]byte("z"), captureMax), true, captureMax},
		{"10 MB + 1", bytes.Repeat([]byte("z"), captureMax+1), true, captureMax},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "artifacts", string(rune('a'+i))+".txt")
		cp := &capture{name: "stdout", path: p}
		feedCapture(cp, c.data, 65536)
		text, truncated, artifact := cp.finish()
		if truncated != c.truncated || cp.saved != c.saved || (artifact != "") != c.truncated {
			t.Errorf("%s: truncated=%v saved=%d artifact=%q", c.name, truncated, cp.saved, artifact)
		}
		if !truncated && text != string(c.data) {
			t.Errorf("%s: whole text differs", c.name)
		}
		if truncated {
			got, _ := os.ReadFile(p)
			if !bytes.Equal(got, c.data[:c.saved]) {
				t.Errorf("%s: artifact has %d bytes, want the first %d", c.name, len(got), c.saved)
			}
			wantComplete := c.saved == int64(len(c.data))
			if strings.Contains(text, "full output in") != wantComplete {
				t.Errorf("%s: notice %q", c.name, text[:strings.IndexByte(text, '\n')])
			}
		}
	}
}

func TestCaptureTailBoundaries(t *testing.T) {
	// Lines of 100 bytes: the tail starts at a line boundary.
	line := strings.Repeat("l", 99) + "\n"
	c := &capture{name: "stdout", path: filepath.Join(t.TempDir(), "a.txt")}
	feedCapture(c, []byte(strings.Repeat(line, 1000)), 4093)
	tail := c.shownTail()
	if len(tail) > tailBytes || len(tail)%100 != 0 || !strings.HasPrefix(tail, "l") {
		t.Errorf("tail of %d bytes does not start at a line", len(tail))
	}
	// One long line of multi-byte runes: no line start, but never a
	// broken rune.
	c = &capture{name: "stdout", path: filepath.Join(t.TempDir(), "b.txt")}
	feedCapture(c, []byte(strings.Repeat("é", 40000)), 1001)
	tail = c.shownTail()
	if !utf8.ValidString(tail) || len(tail) < tailBytes-1 || len(tail) > tailBytes {
		t.Errorf("rune-safe tail: %d bytes, valid=%v", len(tail), utf8.ValidString(tail))
	}
}

func TestCaptureUnwritableArtifact(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	c := &capture{name: "stderr", path: filepath.Join(blocker, "artifacts", "x.txt")}
	feedCapture(c, bytes.Repeat([]byte("e\n"), 3000), 512)
	text, truncated, artifact := c.finish()
	if !truncated || artifact != "" || !strings.Contains(text, "could not be saved") || c.total != 6000 {
		t.Fatalf("truncated=%v artifact=%q total=%d %.120q", truncated, artifact, c.total, text)
	}
}

func TestArtifactID(t *testing.T) {
	for name, want := range map[string]int64{"000012.stdout.txt": 12, "1234567.stderr.txt": 1234567,
		"000001.stdin.txt": 0, "notes.txt": 0, "000000.stdout.txt": 0, "x.stdout.txt": 0, "000003.stdout": 0} {
		if id, ok := artifactID(name); id != want && ok {
			t.Errorf("%s: %d, want %d", name, id, want)
		} else if ok != (want != 0) {
			t.Errorf("%s: ok=%v", name, ok)
		}
	}
}

func TestProcStat(t *testing.T) {
	state, pgid, ok := procStat("self")
	if !ok {
		t.Skip("no /proc")
	}
	if state != 'R' && state != 'S' {
		t.Errorf("state %c", state)
	}
	if want := syscall.Getpgrp(); pgid != want {
		t.Errorf("pgid %d, want %d", pgid, want)
	}
}
