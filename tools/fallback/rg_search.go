package fallback

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// maxSearchBytes bounds how much of one file (or stdin) the fallback
// reads: it holds a file in memory, unlike ripgrep, so a huge log must not
// take the machine down.
const maxSearchBytes = 256 << 20

// binaryProbe is how much of a file is checked for a NUL byte; a file with
// one is binary and skipped, as ripgrep does by default.
const binaryProbe = 8 << 10

// rgRun is one fallback rg invocation.
type rgRun struct {
	o        *rgOpts
	re       *regexp.Regexp
	out      *bufio.Writer
	errOut   io.Writer
	withName bool // prefix lines with the file's path
	matched  bool // something matched (or was listed): exit 0
	failed   bool // an error was reported: exit 2
	printed  bool // a context group was printed, so the next needs "--"
}

// rgMain is the fallback rg. stdin is searched when it carries data and no
// path is given.
func rgMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseRg(args)
	if err != nil {
		fmt.Fprintf(stderr, "rg: %v\n", err)
		return 2
	}
	r := &rgRun{o: o, out: bufio.NewWriter(stdout), errOut: stderr}
	defer r.out.Flush()
	if !o.listFiles {
		if r.re, err = o.regexp(); err != nil {
			fmt.Fprintf(stderr, "rg: regex parse error: %v (fallback rg uses Go regexp syntax)\n", err)
			return 2
		}
	}
	switch {
	case len(o.paths) == 0 && stdin != nil && !o.listFiles:
		r.searchReader(stdin, "<stdin>")
	case len(o.paths) == 0:
		r.withName = true
		r.walk(".")
	default:
		r.searchPaths()
	}
	switch {
	case r.failed:
		return 2
	case r.matched:
		return 0
	}
	return 1
}

// searchPaths searches the paths given on the command line. Names are
// printed when there is more than one path or any of them is a directory.
func (r *rgRun) searchPaths() {
	r.withName = len(r.o.paths) > 1
	for _, p := range r.o.paths {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			r.withName = true
		}
	}
	for _, p := range r.o.paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
			r.fail(err)
		case info.IsDir():
			r.walk(p)
		default:
			r.file(p)
		}
	}
}

// walk visits root recursively in name order, skipping .git, hidden
// entries (unless --hidden), symlinks, and whatever the globs exclude.
func (r *rgRun) walk(root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			r.fail(err)
			return nil
		}
		if p == root {
			return nil
		}
		name := d.Name()
		skip := name == ".git" || (!r.o.hidden && strings.HasPrefix(name, "."))
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if skip || !globsAllow(r.o.globs, rel, d.IsDir()) || !globsAllow(r.o.types, rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			r.file(p)
		}
		return nil
	})
}

// file lists, or searches, one file.
func (r *rgRun) file(p string) {
	f, err := os.Open(p)
	if err != nil {
		r.fail(err)
		return
	}
	defer f.Close()
	if r.o.listFiles {
		fmt.Fprintln(r.out, p)
		r.matched = true
		return
	}
	r.searchReader(f, p)
}

// searchReader searches one stream and prints its matches.
func (r *rgRun) searchReader(in io.Reader, name string) {
	data, err := io.ReadAll(io.LimitReader(in, maxSearchBytes+1))
	if err != nil {
		r.fail(fmt.Errorf("%s: %w", name, err))
		return
	}
	if len(data) > maxSearchBytes {
		fmt.Fprintf(r.errOut, "rg: %s: only the first %d MB searched (fallback rg)\n", name, maxSearchBytes>>20)
		data = data[:maxSearchBytes]
	}
	if len(data) == 0 || bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0 {
		return
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	marks := r.mark(lines)
	if marks == nil {
		return
	}
	r.matched = true
	if r.o.onlyNames {
		fmt.Fprintln(r.out, name)
		return
	}
	r.print(lines, marks, name)
}

// Line marks: which lines are printed, and how.
const (
	markNone byte = iota
	markContext
	markMatch
)

// mark finds the matching lines and their context; nil when none match.
func (r *rgRun) mark(lines [][]byte) []byte {
	var marks []byte
	for i, l := range lines {
		if !r.re.Match(l) {
			continue
		}
		if marks == nil {
			marks = make([]byte, len(lines))
		}
		marks[i] = markMatch
		for k := max(0, i-r.o.before); k <= min(len(lines)-1, i+r.o.after); k++ {
			if marks[k] == markNone {
				marks[k] = markContext
			}
		}
	}
	return marks
}

// print writes the marked lines as ripgrep does without a terminal:
// path:line:text for matches, path-line-text for context, and "--"
// between groups that are not contiguous.
func (r *rgRun) print(lines [][]byte, marks []byte, name string) {
	context := r.o.before > 0 || r.o.after > 0
	last := -2
	for i, m := range marks {
		if m == markNone {
			continue
		}
		if context && r.printed && i != last+1 {
			r.out.WriteString("--\n")
		}
		sep := "-"
		if m == markMatch {
			sep = ":"
		}
		if r.withName {
			r.out.WriteString(name + sep)
		}
		if r.o.numbers {
			r.out.WriteString(strconv.Itoa(i+1) + sep)
		}
		r.out.Write(lines[i])
		r.out.WriteByte('\n')
		last, r.printed = i, true
	}
}

// fail reports an error the way rg does and remembers to exit 2.
func (r *rgRun) fail(err error) {
	r.out.Flush()
	fmt.Fprintf(r.errOut, "rg: %v\n", err)
	r.failed = true
}
