package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// numbered returns "line1\n...lineN\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line%d\n", i)
	}
	return b.String()
}

// hugeInt is the largest int64 a JSON number carries exactly: offset plus
// limit must not overflow.
const hugeInt = 1<<63 - 1024

func readArgs(path string, kv ...any) map[string]any {
	m := map[string]any{"path": path}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestReadFileWindow(t *testing.T) {
	e := newTestEnv(t, true)
	writeFile(t, e.Workdir, "five.txt", "a\nb\nc\nd\ne\n", 0o644)
	cs := connect(t, e, registerReadFile)
	cases := []struct {
		args map[string]any
		want string
	}{
		{readArgs("five.txt"), "five.txt (lines 1-5 of 5)\n1:a\n2:b\n3:c\n4:d\n5:e\n"},
		{readArgs("five.txt", "offset", 2, "limit", 2),
			"five.txt (lines 2-3 of 5)\n2:b\n3:c\n[showing lines 2-3 of 5; use offset=4 to continue]\n"},
		{readArgs("five.txt", "offset", 0, "limit", 1),
			"five.txt (lines 1-1 of 5)\n1:a\n[showing lines 1-1 of 5; use offset=2 to continue]\n"},
		{readArgs("five.txt", "offset", 5), "five.txt (lines 5-5 of 5)\n5:e\n"},
		{readArgs("five.txt", "offset", 4, "limit", 2), "five.txt (lines 4-5 of 5)\n4:d\n5:e\n"},
		{readArgs("five.txt", "limit", 0), "five.txt has 5 lines; limit=0 shows none of them."},
	}
	for _, c := range cases {
		if got := wantOK(t, call(t, cs, "read_file", c.args)); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
	wantErr(t, call(t, cs, "read_file", readArgs("five.txt", "offset", 6)), codeInvalidParams, "offset 6 is past the end", "5 lines")
	wantErr(t, call(t, cs, "read_file", readArgs("five.txt", "offset", -1)), codeInvalidParams, "offset")
	wantErr(t, call(t, cs, "read_file", readArgs("five.txt", "offset", hugeInt, "limit", hugeInt)), codeInvalidParams, "past the end")
	wantErr(t, call(t, cs, "read_file", readArgs("five.txt", "limit", -1)), codeInvalidParams, "limit")
}

func TestReadFileDefaultLimit(t *testing.T) {
	e := newTestEnv(t, false)
	writeFile(t, e.Workdir, "big.txt", numbered(2500), 0o644)
	cs := connect(t, e, registerReadFile)
	got := wantOK(t, call(t, cs, "read_file", readArgs("big.txt")))
	if !strings.HasPrefix(got, "big.txt (lines 1-2000 of 2500)\n1:line1\n") ||
		!strings.HasSuffix(got, "\n2000:line2000\n[showing lines 1-2000 of 2500; use offset=2001 to continue]\n") {
		t.Fatalf("default window: %.100q ... %q", got, got[len(got)-100:])
	}
	got = wantOK(t, call(t, cs, "read_file", readArgs("big.txt", "offset", 2499, "limit", hugeInt)))
	if got != "big.txt (lines 2499-2500 of 2500)\n2499:line2499\n2500:line2500\n" {
		t.Fatalf("huge limit: %q", got)
	}
	got = wantOK(t, call(t, cs, "read_file", readArgs("big.txt", "offset", 2001)))
	if !strings.HasPrefix(got, "big.txt (lines 2001-2500 of 2500)\n2001:line2001\n") || !strings.HasSuffix(got, "\n2500:line2500\n") {
		t.Fatalf("second window: %.100q ... %q", got, got[len(got)-60:])
	}
}

func TestReadFileShapes(t *testing.T) {
	e := newTestEnv(t, true)
	long := strings.Repeat("a", 64<<10-1) + "€" // the rune straddles the 64 KiB read buffer
	files := map[string]string{"empty.txt": "", "nonl.txt": "x\ny", "crlf.txt": "a\r\nb\r\n", "long.txt": long + "\nz\n", "blank.txt": "\n"}
	for name, content := range files {
		writeFile(t, e.Workdir, name, content, 0o644)
	}
	cs := connect(t, e, registerReadFile)
	want := map[string]string{
		"empty.txt": "empty.txt is empty (0 lines).",
		"nonl.txt":  "nonl.txt (lines 1-2 of 2)\n1:x\n2:y\n",
		"crlf.txt":  "crlf.txt (lines 1-2 of 2)\n1:a\n2:b\n",
		"long.txt":  "long.txt (lines 1-2 of 2)\n1:" + long + "\n2:z\n",
		"blank.txt": "blank.txt (lines 1-1 of 1)\n1:\n",
	}
	for name, w := range want {
		if got := wantOK(t, call(t, cs, "read_file", readArgs(name))); got != w {
			t.Errorf("%s: got %.200q, want %.200q", name, got, w)
		}
	}
	if got := wantOK(t, call(t, cs, "read_file", readArgs("empty.txt", "offset", 3, "limit", 0))); got != want["empty.txt"] {
		t.Errorf("empty file with offset: %q", got)
	}
}

func TestReadFileRefusesNonText(t *testing.T) {
	e := newTestEnv(t, true)
	for name, content := range map[string]string{
		"nul.bin": "abc\x00def", "latin1.txt": "caf\xe9\n", "cut.txt": "ok\n\xe2\x82",
		"late.txt":  strings.Repeat("x", 200<<10) + "\xff",
		"split.txt": strings.Repeat("x", 64<<10-1) + "\xe2zz\n", // a lead byte at the buffer's end, then no continuation
	} {
		writeFile(t, e.Workdir, name, content, 0o644)
	}
	if err := os.Mkdir(filepath.Join(e.Workdir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(e.Workdir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e, registerReadFile)
	wantErr(t, call(t, cs, "read_file", readArgs("nul.bin")), codeInvalidParams, "not UTF-8 text", "NUL byte at offset 3")
	wantErr(t, call(t, cs, "read_file", readArgs("latin1.txt")), codeInvalidParams, "invalid UTF-8 at byte 3")
	wantErr(t, call(t, cs, "read_file", readArgs("cut.txt")), codeInvalidParams, "cut off at byte 3")
	wantErr(t, call(t, cs, "read_file", readArgs("late.txt")), codeInvalidParams, fmt.Sprintf("invalid UTF-8 at byte %d", 200<<10))
	wantErr(t, call(t, cs, "read_file", readArgs("split.txt")), codeInvalidParams, fmt.Sprintf("invalid UTF-8 at byte %d", 64<<10-1))
	wantErr(t, call(t, cs, "read_file", readArgs("dir")), codeInvalidParams, "is a directory")
	wantErr(t, call(t, cs, "read_file", readArgs("fifo")), codeInvalidParams, "not a regular file")
	wantErr(t, call(t, cs, "read_file", readArgs("missing.txt")), codeNotFound, "missing.txt")
	wantErr(t, call(t, cs, "read_file", readArgs("")), codeInvalidParams, "empty")
}

func TestReadFileSizeLimit(t *testing.T) {
	e := newTestEnv(t, true)
	line := strings.Repeat("x", 1023) + "\n"
	exact := strings.Repeat(line, 10<<10) // 10 MiB in 10240 lines
	writeFile(t, e.Workdir, "exact.txt", exact, 0o644)
	writeFile(t, e.Workdir, "over.txt", exact+"y", 0o644)
	cs := connect(t, e, registerReadFile)
	got := wantOK(t, call(t, cs, "read_file", readArgs("exact.txt", "offset", 10240)))
	if want := "exact.txt (lines 10240-10240 of 10240)\n10240:" + line; got != want {
		t.Fatalf("10 MiB file: got %.80q", got)
	}
	wantErr(t, call(t, cs, "read_file", readArgs("over.txt")), codeInvalidParams, "10485761 bytes", "10 MiB")
}
