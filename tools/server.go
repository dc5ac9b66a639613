package tools

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/tools/fallback"
)

// Options configures New.
type Options struct {
	// Workdir is where tools work; relative paths resolve against it.
	// Default: the current directory.
	Workdir string
	// Confine keeps every file tool inside Workdir (symlinks included).
	// toolbus worker sets it: its callers are not on this machine.
	Confine bool
	// SessionDir holds this server's artifacts; default a new 0700
	// temporary directory, removed by Close.
	SessionDir string
	// Shell is the shell for shell calls; default TOOLBUS_SHELL, then
	// $SHELL when it is bash, zsh or sh, then /bin/sh.
	Shell string
	// Env is the base environment of shell children; default the process
	// environment. Secrets are removed from it either way.
	Env []string
	// ExtraEnv is appended to the shell environment (e.g. the worker's
	// process-scoped git identity).
	ExtraEnv []string
	// Self is the toolbus executable that rg and tree resolve to; default
	// os.Executable().
	Self string
	// Name and Version identify the MCP server; default "toolbus-tools".
	Name, Version string
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Tools is a ready MCP server with the built-in tools.
type Tools struct {
	Server *mcp.Server
	Env    *Env
	ownDir bool
}

// secretEnv are variables never passed to shell children.
var secretEnv = []string{"NOSTR_PRIVATE_KEY"}

// New builds the tool server.
func New(opts Options) (*Tools, error) {
	env, ownDir, err := newEnv(opts)
	if err != nil {
		return nil, err
	}
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "toolbus-tools"
	}
	if version == "" {
		version = "1"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version},
		&mcp.ServerOptions{Instructions: instructions(env)})
	registerShell(s, env)
	registerReadFile(s, env)
	registerStrReplace(s, env)
	registerViewImage(s, env)
	registerTodo(s, env)
	return &Tools{Server: s, Env: env, ownDir: ownDir}, nil
}

// Close releases the working-directory root and removes a temporary
// session directory.
func (t *Tools) Close() error {
	err := t.Env.Root.Close()
	if t.ownDir {
		err = errors.Join(err, os.RemoveAll(t.Env.SessionDir))
	}
	return err
}

func newEnv(opts Options) (*Env, bool, error) {
	wd := opts.Workdir
	if wd == "" {
		wd = "."
	}
	wd, err := filepath.Abs(wd)
	if err == nil {
		wd, err = filepath.EvalSymlinks(wd)
	}
	if err != nil {
		return nil, false, fmt.Errorf("tools: workdir: %w", err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		return nil, false, fmt.Errorf("tools: open workdir: %w", err)
	}
	session, own := opts.SessionDir, false
	if session == "" {
		if session, err = os.MkdirTemp("", "toolbus-session-"); err != nil {
			root.Close()
			return nil, false, fmt.Errorf("tools: session dir: %w", err)
		}
		own = true
	}
	if err := os.MkdirAll(session, 0o700); err != nil {
		root.Close()
		return nil, false, fmt.Errorf("tools: session dir: %w", err)
	}
	e := &Env{Workdir: wd, Confine: opts.Confine, Root: root, SessionDir: session,
		Shell: pickShell(opts.Shell), Log: opts.Logger, BinDir: filepath.Join(session, "bin")}
	if e.Log == nil {
		e.Log = slog.Default()
	}
	e.ShellEnv = shellEnv(opts.Env, opts.ExtraEnv, e.BinDir)
	if err := installFallbacks(e.BinDir, opts.Self); err != nil {
		e.Log.Warn("rg/tree fallbacks unavailable", "err", err)
	}
	return e, own, nil
}

func installFallbacks(binDir, self string) error {
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return err
		}
	}
	return fallback.Install(binDir, self)
}

// pickShell chooses the shell for shell calls.
func pickShell(explicit string) string {
	for _, s := range []string{explicit, os.Getenv("TOOLBUS_SHELL")} {
		if s != "" {
			return s
		}
	}
	if sh := os.Getenv("SHELL"); sh != "" {
		switch filepath.Base(sh) {
		case "bash", "zsh", "sh":
			return sh
		}
	}
	return "/bin/sh"
}

// shellEnv is the children's environment: base minus secrets, plus extra,
// and TOOLBUS_BIN_DIR so the rg/tree shims can skip themselves on PATH.
func shellEnv(base, extra []string, binDir string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(extra)+1)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !isSecretEnv(name) {
			out = append(out, kv)
		}
	}
	out = append(out, extra...)
	return append(out, "TOOLBUS_BIN_DIR="+binDir)
}

func isSecretEnv(name string) bool {
	for _, s := range secretEnv {
		if name == s {
			return true
		}
	}
	return false
}
