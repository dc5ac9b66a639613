package gitbridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errNoRepo means the repository does not exist (or may not be used); it is
// always answered with the one 404.
var errNoRepo = errors.New("gitbridge: no such repository")

// repoDir is where rt's repository lives. Names were validated by
// parseRoute, so the join cannot leave gitRoot; openRepo still checks.
func (b *Bridge) repoDir(rt route) string {
	return filepath.Join(b.gitRoot, rt.owner, rt.name+".git")
}

// openRepo returns the repository directory, creating it when create is
// set and it does not exist yet.
func (b *Bridge) openRepo(ctx context.Context, rt route, create bool) (string, error) {
	dir := b.repoDir(rt)
	err := b.checkConfined(dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		return dir, b.createRepo(ctx, rt, dir)
	}
	return dir, err
}

// checkConfined makes sure the owner and repository directories are real
// directories (not symlinks, which could point out of data_dir) and that
// the resolved path is still inside gitRoot. Anything odd is reported as
// errNoRepo, never as a reason the client could see.
func (b *Bridge) checkConfined(dir string) error {
	for _, p := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err != nil || !fi.IsDir() {
			b.log.Warn("git: refusing repository path", "path", p, "mode", modeOf(fi), "err", err)
			return errNoRepo
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !within(b.gitRoot, real) {
		b.log.Warn("git: repository path escapes data_dir", "path", dir)
		return errNoRepo
	}
	return nil
}

func modeOf(fi fs.FileInfo) string {
	if fi == nil {
		return ""
	}
	return fi.Mode().String()
}

// within reports whether path is root or below it; both must be clean and
// absolute.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) &&
		!filepath.IsAbs(rel)
}

// createRepo makes an empty bare repository. It is built in a temporary
// directory and renamed into place, so concurrent first pushes cannot
// observe or both create a half-initialised repository: one rename wins and
// the others use its result.
func (b *Bridge) createRepo(ctx context.Context, rt route, dir string) error {
	unlock := b.locks.lock(dir)
	defer unlock()
	if err := b.checkConfined(dir); !errors.Is(err, fs.ErrNotExist) {
		return err // created meanwhile (nil), or refused
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("gitbridge: create owner dir: %w", err)
	}
	tmp, err := os.MkdirTemp(b.tmpDir, rt.name+"-")
	if err != nil {
		return fmt.Errorf("gitbridge: create repo: %w", err)
	}
	defer os.RemoveAll(tmp)
	// --template= skips the sample hooks; hooks come from core.hooksPath.
	_, err = b.gitOutput(ctx, tmp, nil, nil, "init", "--quiet", "--bare", "--template=",
		"--initial-branch=main", tmp)
	if err != nil {
		return fmt.Errorf("gitbridge: git init: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("gitbridge: create repo: %w", err)
	}
	b.log.Info("git: created repository", "owner", rt.owner, "repo", rt.name)
	return nil
}
