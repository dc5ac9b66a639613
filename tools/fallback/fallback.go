// Package fallback makes `rg` and `tree` always work in toolbus shell
// calls. The shell's PATH starts with a private directory whose `rg` and
// `tree` are symlinks to the toolbus executable; toolbus dispatches on
// argv[0] to Main, which forwards to the system's program when there is one
// and otherwise runs a small built-in implementation.
//
// The built-ins cover what coding agents use most; they do not read
// .gitignore files, and any flag they do not implement is refused with a
// clear message rather than silently ignored.
package fallback

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Names are the programs Main can stand in for.
var Names = []string{"rg", "tree"}

// BinDirEnv names the environment variable that holds the private bin
// directory; its entries are never taken for the real program, since they
// are toolbus itself.
const BinDirEnv = "TOOLBUS_BIN_DIR"

// Main runs the program name ("rg" or "tree") with args, like a process
// would: it returns the exit code. The real program is used when PATH has
// one; otherwise the built-in fallback runs.
func Main(name string, args []string, stdout, stderr io.Writer) int {
	if name != "rg" && name != "tree" {
		fmt.Fprintf(stderr, "toolbus: no fallback for %q\n", name)
		return 2
	}
	if real := findReal(name, os.Getenv("PATH")); real != "" {
		return runReal(name, real, args, stdout, stderr)
	}
	if name == "rg" {
		return rgMain(args, stdinSource(), stdout, stderr)
	}
	return treeMain(args, stdout, stderr)
}

// Install creates binDir (0700) holding symlinks rg and tree to self, the
// toolbus executable. Links are replaced atomically, so a shell call that
// runs while toolbus starts never sees a missing rg.
func Install(binDir, self string) error {
	if err := os.MkdirAll(binDir, 0o700); err != nil {
		return err
	}
	for _, name := range Names {
		link := filepath.Join(binDir, name)
		if cur, err := os.Readlink(link); err == nil && cur == self {
			continue
		}
		tmp := link + ".tmp"
		_ = os.Remove(tmp)
		if err := os.Symlink(self, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, link); err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	return nil
}

// findReal returns the first executable called name on path that is not
// toolbus itself: entries equal to the private bin directory are skipped,
// and so is any file that is the running executable (however it is
// reached), which would otherwise call Main again forever.
func findReal(name, path string) string {
	skip := cleanDir(os.Getenv(BinDirEnv))
	self, _ := os.Executable()
	selfInfo, _ := os.Stat(self)
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || (skip != "" && cleanDir(dir) == skip) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			continue
		}
		if selfInfo != nil && os.SameFile(info, selfInfo) {
			continue
		}
		return p
	}
	return ""
}

// cleanDir normalises a directory for comparison, resolving symlinks when
// it can so that two spellings of the bin directory compare equal.
func cleanDir(dir string) string {
	if dir == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// runReal runs the system's program with our stdio and returns its exit
// code, mapping death by signal to 128+signal as shells do.
func runReal(name, path string, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = name
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
}

// stdinSource returns stdin when it carries data (a pipe or a file), as
// in `cmd | rg x`; rg then searches it instead of the current directory.
// A terminal or /dev/null (a character device) does not count, which is
// also how ripgrep decides.
func stdinSource() io.Reader {
	info, err := os.Stdin.Stat()
	if err != nil {
		return nil
	}
	if info.Mode()&os.ModeNamedPipe != 0 || info.Mode().IsRegular() {
		return os.Stdin
	}
	return nil
}
