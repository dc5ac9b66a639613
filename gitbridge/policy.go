package gitbridge

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// zeroID is the object id git uses for "no object" (a created or deleted
// ref) in a SHA-1 repository.
const zeroID = "0000000000000000000000000000000000000000"

// RefUpdate is one ref change of a push.
type RefUpdate struct {
	Old string `json:"old"`
	New string `json:"new"`
	Ref string `json:"ref"`
}

// Deletes reports whether the update removes the ref.
func (u RefUpdate) Deletes() bool { return u.New == zeroID }

// Creates reports whether the update adds the ref.
func (u RefUpdate) Creates() bool { return u.Old == zeroID }

// preReceive decides a push as a whole: git's pre-receive refuses all
// updates or none. The message is shown to the pusher.
func (b *Bridge) preReceive(s *pushSession, req hookRequest) hookResponse {
	env, err := quarantineEnv(s.dir, req.Quarantine)
	if err != nil {
		b.log.Warn("git: pre-receive", "repo", s.dir, "err", err)
		return hookResponse{Message: "push refused: internal error"}
	}
	for _, u := range req.Updates {
		if !isObjectID(u.Old) || !isObjectID(u.New) || !strings.HasPrefix(u.Ref, "refs/") {
			return hookResponse{Message: "push refused: malformed ref update"}
		}
		if msg := b.checkProtected(s.ctx, s.dir, env, u); msg != "" {
			return hookResponse{Message: msg}
		}
	}
	if b.opts.RequireSignedCommits {
		if msg := b.checkSigned(s.ctx, s.dir, env, req.Updates); msg != "" {
			return hookResponse{Message: msg}
		}
	}
	return hookResponse{OK: true}
}

// checkProtected refuses deleting or rewinding a protected branch. A new
// value that does not contain the old one is a force-push.
func (b *Bridge) checkProtected(ctx context.Context, dir string, env []string, u RefUpdate) string {
	branch, ok := strings.CutPrefix(u.Ref, "refs/heads/")
	if !ok || !b.protected(branch) || u.Creates() {
		return ""
	}
	if u.Deletes() {
		return fmt.Sprintf("push refused: branch %s is protected and cannot be deleted", branch)
	}
	_, err := b.gitOutput(ctx, dir, env, nil, "merge-base", "--is-ancestor", u.Old, u.New)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &exit) && exit.ExitCode() == 1: // git's "not an ancestor"
		return fmt.Sprintf("push refused: branch %s is protected: force-push (non-fast-forward) is not allowed", branch)
	}
	b.log.Warn("git: ancestry check failed", "repo", dir, "err", err)
	return "push refused: internal error checking branch " + branch
}

// protected reports whether branch matches a ProtectedBranches pattern.
func (b *Bridge) protected(branch string) bool {
	for _, p := range b.opts.ProtectedBranches {
		if ok, _ := path.Match(p, branch); ok {
			return true
		}
	}
	return false
}

// quarantineEnv returns the environment that lets git see the objects of a
// push in progress. The quarantine path comes from the hook, so it is only
// accepted directly inside the repository's objects directory.
func quarantineEnv(dir, q string) ([]string, error) {
	objects := filepath.Join(dir, "objects")
	env := []string{"GIT_DIR=" + dir}
	if q == "" {
		return env, nil // git without quarantine: objects are in place
	}
	q = filepath.Clean(q)
	if !filepath.IsAbs(q) || filepath.Dir(q) != objects {
		return nil, errors.New("quarantine path outside the repository")
	}
	return append(env, "GIT_OBJECT_DIRECTORY="+q, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+objects), nil
}

// isObjectID reports whether s is a full lower-case SHA-1 object id.
func isObjectID(s string) bool {
	if len(s) != len(zeroID) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
