package tools

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func editArgs(path, old, new string, all bool) map[string]any {
	return map[string]any{"path": path, "old_str": old, "new_str": new, "replace_all": all}
}

func readBack(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStrReplaceEditsAndDiffs(t *testing.T) {
	e := newTestEnv(t, true)
	p := writeFile(t, e.Workdir, "f.txt", numbered(10), 0o644)
	cs := connect(t, e, registerStrReplace)
	got := wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "line5\n", "five\nFIVE\n", false)))
	want := "Replaced 1 occurrence in f.txt.\n\n--- f.txt\n+++ f.txt\n@@ -2,7 +2,8 @@\n line2\n line3\n line4\n-line5\n+five\n+FIVE\n line6\n line7\n line8\n"
	if got != want {
		t.Fatalf("reply:\n%s\nwant:\n%s", got, want)
	}
	if b := readBack(t, p); b != strings.Replace(numbered(10), "line5\n", "five\nFIVE\n", 1) {
		t.Fatalf("file: %q", b)
	}
	if entries, _ := os.ReadDir(e.Workdir); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestStrReplaceKeepsMode(t *testing.T) {
	e := newTestEnv(t, true)
	p := writeFile(t, e.Workdir, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	q := writeFile(t, e.Workdir, "private.txt", "secret\n", 0o600)
	cs := connect(t, e, registerStrReplace)
	wantOK(t, call(t, cs, "str_replace", editArgs("run.sh", "hi", "there", false)))
	wantOK(t, call(t, cs, "str_replace", editArgs("private.txt", "secret", "hidden", false)))
	for path, mode := range map[string]os.FileMode{p: 0o755, q: 0o600} {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
	if got := readBack(t, p); got != "#!/bin/sh\necho there\n" {
		t.Errorf("content %q", got)
	}
}

func TestStrReplaceNotFoundHint(t *testing.T) {
	e := newTestEnv(t, true)
	src := "package x\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"
	writeFile(t, e.Workdir, "main.go", src, 0o644)
	far := strings.Repeat("filler\n", 200) + "func needle() int {\n"
	writeFile(t, e.Workdir, "far.go", far, 0o644)
	cs := connect(t, e, registerStrReplace)
	msg := wantErr(t, call(t, cs, "str_replace", editArgs("main.go", "\n  fmt.Println(\"hello world\")\n}", "x", false)),
		codeInvalidParams, "old_str was not found in main.go", "line 6", `found:    "\tfmt.Println(\"hello, world\")"`,
		`expected: "  fmt.Println(\"hello world\")"`)
	t.Log(msg)
	wantErr(t, call(t, cs, "str_replace", editArgs("main.go", "func main() {\n}", "x", false)),
		codeInvalidParams, "Line 5 matches the first line of old_str")
	wantErr(t, call(t, cs, "str_replace", editArgs("main.go", "completely different text", "x", false)),
		codeInvalidParams, "No line among its first 200")
	// The similar line is line 201: beyond the hint's reach.
	wantErr(t, call(t, cs, "str_replace", editArgs("far.go", "func needle() string {", "x", false)),
		codeInvalidParams, "No line among its first 200")
	if readBack(t, filepath.Join(e.Workdir, "main.go")) != src {
		t.Fatal("file changed by a failed edit")
	}
}

func TestStrReplaceAmbiguousAndReplaceAll(t *testing.T) {
	e := newTestEnv(t, true)
	p := writeFile(t, e.Workdir, "f.txt", "x = 1\ny = 1\nz = 1\n", 0o644)
	writeFile(t, e.Workdir, "aaa.txt", "aaa\n", 0o644)
	cs := connect(t, e, registerStrReplace)
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "= 1", "= 2", false)), codeInvalidParams,
		"occurs 3 times", "provide more surrounding context to make the match unique")
	wantErr(t, call(t, cs, "str_replace", editArgs("aaa.txt", "aa", "b", false)), codeInvalidParams, "occurs 2 times")
	if readBack(t, p) != "x = 1\ny = 1\nz = 1\n" {
		t.Fatal("file changed by an ambiguous edit")
	}
	got := wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "= 1", "= 2", true)))
	if !strings.HasPrefix(got, "Replaced 3 occurrences in f.txt.") || !strings.Contains(got, "@@ -1,3 +1,3 @@\n-x = 1\n+x = 2\n-y = 1\n+y = 2\n-z = 1\n+z = 2\n") {
		t.Fatalf("replace_all reply: %q", got)
	}
	if b := readBack(t, p); b != "x = 2\ny = 2\nz = 2\n" {
		t.Fatalf("replace_all file: %q", b)
	}
	wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "x = 2", "x = 3", true))) // one match is fine too
}

func TestStrReplaceRefusals(t *testing.T) {
	e := newTestEnv(t, true)
	writeFile(t, e.Workdir, "f.txt", "abc\n", 0o644)
	writeFile(t, e.Workdir, "bin.dat", "a\x00b", 0o644)
	writeFile(t, e.Workdir, "big.txt", strings.Repeat("x", maxTextFileBytes+1), 0o644)
	cs := connect(t, e, registerStrReplace)
	wantErr(t, call(t, cs, "str_replace", editArgs("new.txt", "a", "b", false)), codeNotFound,
		"str_replace edits existing files; it cannot create new.txt")
	if _, err := os.Stat(filepath.Join(e.Workdir, "new.txt")); err == nil {
		t.Fatal("a file was created")
	}
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "", "x", false)), codeInvalidParams, "old_str is empty")
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "abc", "abc", false)), codeInvalidParams, "identical")
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "abc", "a\x00", false)), codeInvalidParams, "NUL")
	wantErr(t, call(t, cs, "str_replace", editArgs("bin.dat", "a", "b", false)), codeInvalidParams, "not UTF-8 text")
	wantErr(t, call(t, cs, "str_replace", editArgs("big.txt", "x", "y", false)), codeInvalidParams, "10485761 bytes", "10 MiB")
	wantErr(t, call(t, cs, "str_replace", editArgs(".", "x", "y", false)), codeInvalidParams, "is a directory")
}

func TestStrReplaceSizeCaps(t *testing.T) {
	e := newTestEnv(t, true)
	mib := strings.Repeat("o", maxEditArgBytes-1) + "\n"
	p := writeFile(t, e.Workdir, "f.txt", "head\n"+mib+"tail\n", 0o644)
	cs := connect(t, e, registerStrReplace)
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", mib+"t", "x", false)), codeInvalidParams, "old_str is 1048577 bytes", "1 MiB")
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "head", mib+"!", false)), codeInvalidParams, "new_str is 1048577 bytes")
	wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", mib, "middle\n", false))) // exactly 1 MiB
	wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "middle\n", mib, false)))
	if readBack(t, p) != "head\n"+mib+"tail\n" {
		t.Fatal("1 MiB round trip changed the file")
	}
	// A file of exactly 10 MiB can be edited; an edit may not grow it past that.
	writeFile(t, e.Workdir, "f.txt", "head\n"+strings.Repeat("o", maxTextFileBytes-11)+"\ntail\n", 0o644)
	wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "head", "HEAD", false)))
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "HEAD", "HEAD!", false)), codeInvalidParams, "10485761 bytes", "over the 10 MiB limit")
	wantErr(t, call(t, cs, "str_replace", editArgs("f.txt", "o", "oooooooooooo", true)), codeInvalidParams, "over the 10 MiB limit")
}

func TestStrReplaceDiffTruncated(t *testing.T) {
	e := newTestEnv(t, true)
	writeFile(t, e.Workdir, "f.txt", numbered(5000), 0o644)
	cs := connect(t, e, registerStrReplace)
	got := wantOK(t, call(t, cs, "str_replace", editArgs("f.txt", "line", "row", true)))
	diff := strings.TrimPrefix(got, "Replaced 5000 occurrences in f.txt.\n\n")
	body, ok := strings.CutSuffix(diff, "[diff truncated]\n")
	if !ok || len(body) > maxDiffBytes || len(body) < maxDiffBytes-100 || !strings.HasPrefix(body, "--- f.txt\n+++ f.txt\n@@ -1,5000 +1,5000 @@\n-line1\n") {
		t.Fatalf("truncated diff: %d bytes, starts %.80q, ends %q", len(diff), diff, diff[len(diff)-40:])
	}
	// Just under the cap: nothing is cut.
	writeFile(t, e.Workdir, "g.txt", numbered(10), 0o644)
	if got := wantOK(t, call(t, cs, "str_replace", editArgs("g.txt", "line", "row", true))); strings.Contains(got, "truncated") {
		t.Fatal("small diff marked truncated")
	}
}

func TestStrReplaceCRLF(t *testing.T) {
	e := newTestEnv(t, true)
	p := writeFile(t, e.Workdir, "win.txt", "one\r\ntwo\r\nthree\r\n", 0o644)
	cs := connect(t, e, registerStrReplace)
	got := wantOK(t, call(t, cs, "str_replace", editArgs("win.txt", "one\ntwo", "1\n2", false)))
	if !strings.Contains(got, "CRLF") {
		t.Errorf("reply does not mention CRLF: %q", got)
	}
	if b := readBack(t, p); b != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("file %q", b)
	}
}

// TestUnifiedDiffApplies checks generated diffs with patch(1): for many
// edits (start, middle, end, no final newline, merged and separate
// hunks, deletions), applying the diff to the old text gives the new.
func TestUnifiedDiffApplies(t *testing.T) {
	if _, err := os.Stat("/usr/bin/patch"); err != nil {
		t.Skip("patch(1) not installed")
	}
	base := numbered(40)
	cases := []struct{ content, old, new string }{
		{base, "line1\n", ""},
		{base, "line40\n", "last\nlines\n"},
		{base, "line2", "L"},
		{strings.TrimSuffix(base, "\n"), "line40", "end"},
		{strings.TrimSuffix(base, "\n"), "\nline40", ""},
		{base, "line4\n", "x\n"},
		{base, "ne1", "NE"},
		{base + "z", "z", "y\n"},
		{"a\nb\na\nb\n", "a\nb", "b\na"},
		{"same\nsame\n", "same\nsame\n", "same\nother\n"},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"a", "b", "a\n", "b\n", "\n", "ab", "c\n"}
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for range 150 { // random texts and edits: merged lines, empty lines, EOF without newline
		content, old := pick(5+rng.IntN(60)), pick(1+rng.IntN(3))
		if strings.Contains(content, old) && old != "" {
			cases = append(cases, struct{ content, old, new string }{content, old, pick(rng.IntN(3))})
		}
	}
	for i, c := range cases {
		if c.old == c.new {
			continue
		}
		updated, at := match{old: c.old, new: c.new, all: true}.apply(c.content)
		diff := unifiedDiff("f", c.content, updated, at, len(c.old), len(c.new))
		dir := t.TempDir()
		f := writeFile(t, dir, "f", c.content, 0o644)
		writeFile(t, dir, "d.patch", diff, 0o644)
		out, err := runPatch(dir)
		if err != nil {
			t.Fatalf("case %d: patch failed: %v\n%s\ndiff:\n%s", i, err, out, diff)
		}
		if got := readBack(t, f); got != updated {
			t.Fatalf("case %d: patched %q, want %q\ndiff:\n%s", i, got, updated, diff)
		}
	}
}

func runPatch(dir string) (string, error) {
	cmd := exec.Command("patch", "-s", "-p0", "f", "d.patch")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
