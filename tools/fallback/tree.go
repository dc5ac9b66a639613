package fallback

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// treeOpts is the part of tree's command line the fallback implements.
type treeOpts struct {
	depth    int      // -L: levels shown; 0 is unlimited
	all      bool     // -a: show hidden entries (.git stays hidden)
	dirsOnly bool     // -d
	ignore   []string // -I: base-name patterns, '|'-separated
	roots    []string
}

// treeRun is one fallback tree invocation and its running counts.
type treeRun struct {
	o     *treeOpts
	out   *bufio.Writer
	dirs  int
	files int
}

// treeMain is the fallback tree.
func treeMain(args []string, stdout, stderr io.Writer) int {
	o, err := parseTree(args)
	if err != nil {
		fmt.Fprintf(stderr, "tree: %v\n", err)
		return 2
	}
	t := &treeRun{o: o, out: bufio.NewWriter(stdout)}
	defer t.out.Flush()
	code := 0
	for _, root := range o.roots {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			fmt.Fprintf(t.out, "%s [error opening dir]\n", root)
			code = 2
			continue
		}
		fmt.Fprintln(t.out, root)
		t.list(root, "", 1)
	}
	fmt.Fprintf(t.out, "\n%s", plural(t.dirs, "directory", "directories"))
	if !o.dirsOnly {
		fmt.Fprintf(t.out, ", %s", plural(t.files, "file", "files"))
	}
	fmt.Fprintln(t.out)
	return code
}

// parseTree parses [-L depth] [-a] [-d] [-I pattern] [--] [dir...].
func parseTree(args []string) (*treeOpts, error) {
	o := &treeOpts{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.roots = append(o.roots, args[i+1:]...)
			i = len(args)
		case a == "-a":
			o.all = true
		case a == "-d":
			o.dirsOnly = true
		case a == "-L" || a == "-I":
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag %s needs a value (fallback tree)", a)
			}
			i++
			if err := o.value(a, args[i]); err != nil {
				return nil, err
			}
		case strings.HasPrefix(a, "-L") || strings.HasPrefix(a, "-I"):
			if err := o.value(a[:2], a[2:]); err != nil {
				return nil, err
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, fmt.Errorf("unsupported flag %s (fallback tree)\ntree: supported: -L DEPTH -a -d -I PATTERN", a)
		default:
			o.roots = append(o.roots, a)
		}
	}
	if len(o.roots) == 0 {
		o.roots = []string{"."}
	}
	return o, nil
}

// value applies -L or -I.
func (o *treeOpts) value(flag, v string) error {
	if flag == "-I" {
		o.ignore = append(o.ignore, strings.Split(v, "|")...)
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("invalid level %q, must be a number greater than 0 (fallback tree)", v)
	}
	o.depth = n
	return nil
}

// list prints the entries of dir at the given level, drawing the branches
// with prefix; it does not follow symlinks, so a link loop cannot recurse.
func (t *treeRun) list(dir, prefix string, level int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(t.out, "%s[error opening dir: %v]\n", prefix, err)
		return
	}
	shown := entries[:0]
	for _, e := range entries {
		if t.shows(e, dir) {
			shown = append(shown, e)
		}
	}
	for i, e := range shown {
		branch, indent := "├── ", "│   "
		if i == len(shown)-1 {
			branch, indent = "└── ", "    "
		}
		p := filepath.Join(dir, e.Name())
		fmt.Fprintf(t.out, "%s%s%s\n", prefix, branch, t.label(e, p))
		if e.IsDir() && (t.o.depth == 0 || level < t.o.depth) {
			t.list(p, prefix+indent, level+1)
		}
	}
}

// shows says whether an entry is listed.
func (t *treeRun) shows(e os.DirEntry, dir string) bool {
	name := e.Name()
	if name == ".git" || (!t.o.all && strings.HasPrefix(name, ".")) {
		return false
	}
	for _, pat := range t.o.ignore {
		if ok, _ := path.Match(pat, name); ok {
			return false
		}
	}
	return !t.o.dirsOnly || e.IsDir() || (e.Type()&os.ModeSymlink != 0 && isDir(filepath.Join(dir, name)))
}

// label is an entry's name (with a symlink's target) and counts it.
func (t *treeRun) label(e os.DirEntry, p string) string {
	if e.Type()&os.ModeSymlink == 0 {
		t.count(e.IsDir())
		return e.Name()
	}
	target, _ := os.Readlink(p)
	t.count(isDir(p))
	return e.Name() + " -> " + target
}

// count adds one directory or file to the report line.
func (t *treeRun) count(dir bool) {
	if dir {
		t.dirs++
	} else {
		t.files++
	}
}

// isDir says whether p is, or links to, a directory.
func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// plural formats a count the way tree does ("1 directory, 2 files").
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
