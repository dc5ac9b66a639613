package fallback

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeTree creates files (path → content) under a new directory and
// makes it the current directory.
func makeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// rgFixture is a small project with the things rg must skip.
var rgFixture = map[string]string{
	"a.go":              "package a\n\nfunc Foo() {}\n",
	"b.txt":             "foo\nbar\nFOO\nfood\n",
	"bin.dat":           "foo\x00\x01",
	"empty.txt":         "",
	"sub/c.go":          "x\nfoo here\ny\nz\nw\nfoo again\n",
	"sub/deep/d.md":     "a.b\naxb\n",
	"node_modules/m.js": "foo()\n",
	".hidden/h.txt":     "foo\n",
	".git/config":       "foo\n",
}

func TestRgFallback(t *testing.T) {
	noRealTools(t)
	makeTree(t, rgFixture)
	cases := []struct {
		args     []string
		out      string
		code     int
		errParts []string
	}{
		{[]string{"foo"}, "b.txt:foo\nb.txt:food\nnode_modules/m.js:foo()\nsub/c.go:foo here\nsub/c.go:foo again\n", 0, nil},
		{[]string{"-n", "foo", "sub"}, "sub/c.go:2:foo here\nsub/c.go:6:foo again\n", 0, nil},
		{[]string{"-i", "-l", "foo"}, "a.go\nb.txt\nnode_modules/m.js\nsub/c.go\n", 0, nil},
		{[]string{"-il", "foo"}, "a.go\nb.txt\nnode_modules/m.js\nsub/c.go\n", 0, nil},
		{[]string{"-S", "-l", "FOO"}, "b.txt\n", 0, nil},
		{[]string{"-w", "foo", "b.txt"}, "foo\n", 0, nil},
		{[]string{"-C", "1", "-n", "foo", "sub/c.go"}, "1-x\n2:foo here\n3-y\n--\n5-w\n6:foo again\n", 0, nil},
		{[]string{"-nC1", "foo", "sub/c.go"}, "1-x\n2:foo here\n3-y\n--\n5-w\n6:foo again\n", 0, nil},
		{[]string{"-A", "1", "here", "sub/c.go", "b.txt"}, "sub/c.go:foo here\nsub/c.go-y\n", 0, nil},
		{[]string{"--context=2", "-n", "again", "sub/c.go"}, "4-z\n5-w\n6:foo again\n", 0, nil},
		{[]string{"-g", "*.go", "foo"}, "sub/c.go:foo here\nsub/c.go:foo again\n", 0, nil},
		{[]string{"-l", "-g", "!node_modules", "--glob=!*.go", "foo"}, "b.txt\n", 0, nil},
		{[]string{"-l", "-g", "sub/**", "foo"}, "sub/c.go\n", 0, nil},
		{[]string{"-tgo", "foo"}, "sub/c.go:foo here\nsub/c.go:foo again\n", 0, nil},
		{[]string{"--type=md", "--type", "go", "-l", "a"}, "a.go\nsub/c.go\nsub/deep/d.md\n", 0, nil},
		{[]string{"-T", "go", "-l", "foo"}, "b.txt\nnode_modules/m.js\n", 0, nil},
		{[]string{"-t", "cobol", "foo"}, "", 2, []string{"unknown file type"}},
		{[]string{"--files"}, "a.go\nb.txt\nbin.dat\nempty.txt\nnode_modules/m.js\nsub/c.go\nsub/deep/d.md\n", 0, nil},
		{[]string{"--files", "-g", "*.{go,md}", "sub"}, "sub/c.go\nsub/deep/d.md\n", 0, nil},
		{[]string{"--files", "--hidden", "-g", "*.txt"}, ".hidden/h.txt\nb.txt\nempty.txt\n", 0, nil},
		{[]string{"-F", "a.b", "sub/deep/d.md"}, "a.b\n", 0, nil},
		{[]string{"a.b", "sub/deep/d.md"}, "a.b\naxb\n", 0, nil},
		{[]string{"-e", "bar", "-e", "^foo$", "b.txt"}, "foo\nbar\n", 0, nil},
		{[]string{"--", "-x"}, "", 1, nil},
		{[]string{"nothing-matches"}, "", 1, nil},
		{[]string{"-v", "foo"}, "", 2, []string{"unsupported flag -v (fallback rg)", "supported:"}},
		{[]string{"--json", "foo"}, "", 2, []string{"unsupported flag --json (fallback rg)"}},
		{[]string{"-C"}, "", 2, []string{"needs a value"}},
		{[]string{"-C", "x", "foo"}, "", 2, []string{"non-negative number"}},
		{[]string{"("}, "", 2, []string{"regex parse error"}},
		{nil, "", 2, []string{"no pattern"}},
		{[]string{"foo", "missing", "b.txt"}, "b.txt:foo\nb.txt:food\n", 2, []string{"missing"}},
	}
	for _, c := range cases {
		code, out, errOut := runMain("rg", c.args...)
		if code != c.code || out != c.out {
			t.Errorf("rg %q: code %d, out:\n%s\nwant code %d, out:\n%s\nstderr: %s", c.args, code, out, c.code, c.out, errOut)
		}
		for _, part := range c.errParts {
			if !strings.Contains(errOut, part) {
				t.Errorf("rg %q: stderr %q lacks %q", c.args, errOut, part)
			}
		}
	}
}

func TestRgFallbackStdin(t *testing.T) {
	var out, errOut bytes.Buffer
	code := rgMain([]string{"-n", "b"}, strings.NewReader("a\nb\nab"), &out, &errOut)
	if code != 0 || out.String() != "2:b\n3:ab\n" {
		t.Fatalf("code %d, out %q, err %q", code, out.String(), errOut.String())
	}
}

func TestGlob(t *testing.T) {
	cases := []struct {
		glob, path string
		match      bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "c.go.txt", false},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"/src/*.go", "src/a.go", true},
		{"**/test/**", "a/test/b", true},
		{"?.md", "a.md", true},
		{"?.md", "ab.md", false},
		{"[ab].txt", "b.txt", true},
		{"[!ab].txt", "b.txt", false},
		{"*.{js,ts}", "x.ts", true},
		{"*.{js,ts}", "x.rs", false},
		{`a\*b`, "a*b", true},
		{"a+b(c)", "a+b(c)", true},
	}
	for _, c := range cases {
		r, err := parseGlob(c.glob)
		if err != nil {
			t.Fatalf("%s: %v", c.glob, err)
		}
		if got := globsAllow([]globRule{r}, c.path, false); got != c.match {
			t.Errorf("%s on %s: %v, want %v", c.glob, c.path, got, c.match)
		}
	}
}
