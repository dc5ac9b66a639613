// Package tools is toolbus's built-in MCP server for coding agents: shell,
// read_file, str_replace, view_image and todo (plus the _Stop and
// _PostCompact hooks), with hard limits on everything a model can ask for.
// It is independent of Nostr: `toolbus tools --stdio` serves it to a local
// agent, and `toolbus worker` puts the same server on the bus.
package tools

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// Env is what every tool shares: where it works, whether file tools are
// confined to the working directory, and the per-session directory for
// artifacts.
type Env struct {
	// Workdir is the absolute, symlink-resolved working directory.
	Workdir string
	// Confine keeps every file tool inside Workdir (symlinks included).
	Confine bool
	// Root is Workdir opened as an os.Root; with Confine, every file access
	// goes through it, so ../, absolute paths and symlinks cannot escape.
	Root *os.Root
	// SessionDir is private to this server instance (0700): artifacts of
	// shell calls live under SessionDir/artifacts.
	SessionDir string
	// Shell is the shell binary used for shell calls (TOOLBUS_SHELL, else
	// $SHELL if it is bash/zsh/sh, else /bin/sh).
	Shell string
	// ShellEnv is the environment of shell children (already filtered:
	// never contains NOSTR_PRIVATE_KEY).
	ShellEnv []string
	// BinDir is the private directory put first on the shell's PATH, where
	// rg and tree resolve to toolbus itself.
	BinDir string
	// Log receives operational messages; never file contents or secrets.
	Log *slog.Logger
}

// ErrOutsideWorkdir is returned for a path that leaves the working
// directory of a confined server.
var ErrOutsideWorkdir = errors.New("path is outside the working directory")

// Resolve turns a tool's path argument into a path relative to Workdir
// (for Root) and an absolute one (for messages and unconfined access).
// Relative paths are relative to Workdir. With Confine, a path that leaves
// Workdir lexically is refused here; symlinks that leave it are refused by
// Root at access time.
func (e *Env) Resolve(p string) (rel, abs string, err error) {
	if p == "" {
		return "", "", errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", "", errors.New("path contains a NUL byte")
	}
	abs = p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(e.Workdir, p)
	}
	abs = filepath.Clean(abs)
	rel, err = filepath.Rel(e.Workdir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if e.Confine {
			return "", "", fmt.Errorf("%w: %s", ErrOutsideWorkdir, p)
		}
		return "", abs, nil
	}
	return rel, abs, nil
}

// OpenFile opens a file for a tool: through Root when confined (or when
// the path is inside Workdir), directly otherwise.
func (e *Env) OpenFile(p string, flag int, perm os.FileMode) (*os.File, string, error) {
	rel, abs, err := e.Resolve(p)
	if err != nil {
		return nil, "", err
	}
	if e.Confine {
		f, err := e.Root.OpenFile(rel, flag, perm)
		return f, abs, rootError(err, p)
	}
	f, err := os.OpenFile(abs, flag, perm)
	return f, abs, err
}

// rootError rewords os.Root's escape error so the model understands it.
func rootError(err error, p string) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%w: %s (through a symlink)", ErrOutsideWorkdir, p)
	}
	return err
}
