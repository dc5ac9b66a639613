package agentsetup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeyFileAdvice says what is wrong with the key file at path and how to fix
// it, or returns "" when it is a non-empty regular file of mode 0600 or
// stricter. It only stats the file: agent-setup has no use for the key, so
// it never reads it and cannot leak it.
func KeyFileAdvice(path string) string {
	q := shellQuote(path)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("key file %s does not exist. Create a new key with:\n"+
			"  toolbus key new --out %s\n"+
			"or, to use a key you already have, make an empty private file with\n"+
			"  install -m 600 /dev/null %s\n"+
			"and paste the nsec1… into it with an editor (never on a command line or in a chat).", path, q, q)
	case err != nil:
		return fmt.Sprintf("key file: %v", err)
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("key file %s is not a regular file (%s); toolbus mcp will refuse it.", path, fi.Mode().Type())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Sprintf("key file %s has mode %04o: others may read it, and toolbus mcp will refuse it. Fix with:\n  chmod 600 %s",
			path, uint32(fi.Mode().Perm()), q)
	case fi.Size() == 0:
		return fmt.Sprintf("key file %s is empty: paste your nsec1… key into it with an editor.", path)
	}
	return ""
}

// ResolveCommand picks the toolbus command for the config from the running
// executable's path (os.Executable's result). note is non-empty when the
// choice needs explaining. A `go run` binary lives in a go-build temporary
// directory that is deleted when it exits, so it is replaced by "toolbus",
// looked up on the client's PATH.
func ResolveCommand(exe string, exeErr error) (command, note string) {
	if exeErr != nil || exe == "" {
		return "toolbus", "cannot locate this binary; the config runs `toolbus` from the client's PATH (or pass --command)."
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if isGoRunBinary(exe) {
		return "toolbus", fmt.Sprintf("this is a `go run` build (%s), deleted on exit; the config runs `toolbus` "+
			"from the client's PATH instead: install it with `go install ./cmd/toolbus`, or pass --command /path/to/toolbus.", exe)
	}
	return exe, ""
}

// isGoRunBinary reports whether exe sits under a go-build work directory,
// which is how `go run` lays out its temporary binaries.
func isGoRunBinary(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// CommandAdvice explains a --command given as a bare name, or returns "".
// Editors started from a desktop often have a shorter PATH than a shell.
func CommandAdvice(command string) string {
	if filepath.IsAbs(command) {
		return ""
	}
	return fmt.Sprintf("the config runs %q through the client's PATH; if the client cannot start it, "+
		"use an absolute path (--command $(command -v toolbus)).", command)
}

// AbsCommand makes a --command that names a file by a relative path
// absolute, and leaves a bare name (no separator) for PATH lookup.
func AbsCommand(command string) (string, error) {
	if command == "" || !strings.ContainsRune(command, filepath.Separator) {
		return command, nil
	}
	return AbsPath(command)
}
