package fallback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeFixture has nesting, hidden entries, .git and a symlink.
var treeFixture = map[string]string{
	"README.md":         "",
	"cmd/main.go":       "",
	"cmd/sub/x.go":      "",
	"lib/a.go":          "",
	"node_modules/m.js": "",
	".env":              "",
	".git/HEAD":         "",
}

func TestTreeFallback(t *testing.T) {
	noRealTools(t)
	dir := makeTree(t, treeFixture)
	if err := os.Symlink("lib", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		out  string
		code int
	}{
		{nil, `.
├── README.md
├── cmd
│   ├── main.go
│   └── sub
│       └── x.go
├── lib
│   └── a.go
├── link -> lib
└── node_modules
    └── m.js

5 directories, 5 files
`, 0},
		{[]string{"-L", "1", "-a"}, `.
├── .env
├── README.md
├── cmd
├── lib
├── link -> lib
└── node_modules

4 directories, 2 files
`, 0},
		{[]string{"-d", "-L2", "-I", "node_modules|lib"}, `.
├── cmd
│   └── sub
└── link -> lib

3 directories
`, 0},
		{[]string{"cmd"}, `cmd
├── main.go
└── sub
    └── x.go

1 directory, 2 files
`, 0},
		{[]string{"missing"}, "missing [error opening dir]\n\n0 directories, 0 files\n", 2},
	}
	for _, c := range cases {
		code, out, errOut := runMain("tree", c.args...)
		if code != c.code || out != c.out {
			t.Errorf("tree %q: code %d, stderr %q, out:\n%s\nwant code %d:\n%s", c.args, code, errOut, out, c.code, c.out)
		}
	}
	for _, args := range [][]string{{"-f"}, {"-L", "0"}, {"-L"}, {"--du"}} {
		code, out, errOut := runMain("tree", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "(fallback tree)") {
			t.Errorf("tree %q: code %d, out %q, err %q", args, code, out, errOut)
		}
	}
}
