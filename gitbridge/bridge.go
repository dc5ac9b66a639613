package gitbridge

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
)

// Bridge serves git smart HTTP. Mount it at /git/ without stripping the
// prefix; it is safe for concurrent use. Close it on shutdown.
type Bridge struct {
	opts       Options
	log        *slog.Logger
	gitRoot    string // DataDir/git, symlinks resolved
	hooksDir   string
	homeDir    string
	tmpDir     string
	publicPath string // path part of PublicURL, "" for none
	sem        chan struct{}
	locks      keyedMutex
	clock      stateClock
	hooks      *hookServer
}

// New prepares the directories under DataDir/git, writes the hook scripts
// and starts the loopback listener the hooks call back to.
func New(opts Options) (*Bridge, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	b := &Bridge{opts: opts, log: opts.Logger, sem: make(chan struct{}, opts.MaxGitProcesses)}
	if err := b.prepareDirs(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(opts.PublicURL) // checked by withDefaults
	b.publicPath = u.Path
	if b.hooks, err = startHookServer(b); err != nil {
		return nil, err
	}
	return b, nil
}

// prepareDirs creates DataDir/git and the bridge's dot-directories, and
// writes the hook scripts.
func (b *Bridge) prepareDirs() error {
	root := filepath.Join(b.opts.DataDir, "git")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("gitbridge: %w", err)
	}
	// Resolved once: data_dir may legitimately be a symlink; what lies
	// below it may not (see checkConfined).
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("gitbridge: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return fmt.Errorf("gitbridge: %w", err)
	}
	b.gitRoot = real
	b.hooksDir = filepath.Join(real, ".hooks")
	b.homeDir = filepath.Join(real, ".home")
	b.tmpDir = filepath.Join(real, ".tmp")
	for _, d := range []string{b.hooksDir, b.homeDir, b.tmpDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("gitbridge: %w", err)
		}
	}
	return writeHookScripts(b.hooksDir, b.opts.HookBinary)
}

// Close stops the hook listener. Pushes still running fail their hooks.
func (b *Bridge) Close() error {
	return b.hooks.close()
}

// ServeHTTP is the single access gate in front of every git route: parse,
// authenticate, authorise, and only then touch the disk.
func (b *Bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, ok := parseRoute(r)
	if !ok {
		notFound(w)
		return
	}
	pk, err := b.authenticate(r, rt)
	if err != nil {
		b.log.Debug("git: authentication failed", "path", r.URL.Path, "err", err)
		challenge(w, err)
		return
	}
	need := ReadAccess
	if rt.push() {
		need = WriteAccess
	}
	ann := b.announcement(r.Context(), rt)
	if got := accessFor(pk, rt.owner, ann, b.opts.IsMember); got < need {
		b.log.Info("git: access denied", "owner", rt.owner, "repo", rt.name, "pubkey", pk, "access", got)
		deny(w, pk, got)
		return
	}
	// Only the owner creates, and only by pushing.
	dir, err := b.openRepo(r.Context(), rt, rt.push() && pk == rt.owner)
	if err != nil {
		if !errors.Is(err, errNoRepo) && !errors.Is(err, os.ErrNotExist) {
			b.log.Error("git: open repository", "owner", rt.owner, "repo", rt.name, "err", err)
		}
		notFound(w)
		return
	}
	if rt.advertise {
		b.serveAdvertisement(w, r, rt, dir)
		return
	}
	b.serveRPC(w, r, rt, dir, pk, ann)
}

// notFound is the one answer for "no such repository" and "not for you",
// so the two cannot be told apart.
func notFound(w http.ResponseWriter) {
	http.Error(w, "repository not found", http.StatusNotFound)
}

// deny answers a request whose access is below what it needs.
func deny(w http.ResponseWriter, pk string, got Access) {
	switch {
	case pk == "":
		challenge(w, errAnonymous)
	case got >= ReadAccess:
		http.Error(w, "push access denied: only the owner and maintainers may push", http.StatusForbidden)
	default:
		notFound(w)
	}
}
