package gitbridge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"toolbus/signer"
)

// checkSigned enforces RequireSignedCommits: every commit the push adds
// (reachable from a new ref value, not from any existing ref) must carry a
// signature that VerifySignature accepts, made by a workspace member. It
// returns the refusal message, or "" to accept.
func (b *Bridge) checkSigned(ctx context.Context, dir string, env []string, updates []RefUpdate) string {
	ids, err := b.newCommits(ctx, dir, env, updates)
	if err != nil {
		b.log.Warn("git: list new commits", "repo", dir, "err", err)
		return "push refused: cannot list the pushed commits"
	}
	if len(ids) == 0 {
		return ""
	}
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id + "\n")
	}
	out, err := b.gitOutput(ctx, dir, env, &in, "cat-file", "--batch")
	if err != nil {
		b.log.Warn("git: read new commits", "repo", dir, "err", err)
		return "push refused: cannot read the pushed commits"
	}
	return b.verifyCommits(bufio.NewReader(bytes.NewReader(out)), len(ids))
}

// newCommits lists the commits reachable from the pushed values and from
// no ref the repository has now (the quarantine env keeps refs as they
// were before this push).
func (b *Bridge) newCommits(ctx context.Context, dir string, env []string, updates []RefUpdate) ([]string, error) {
	args := []string{"rev-list"}
	for _, u := range updates {
		if !u.Deletes() {
			args = append(args, u.New)
		}
	}
	if len(args) == 1 {
		return nil, nil
	}
	out, err := b.gitOutput(ctx, dir, env, nil, append(args, "--not", "--all")...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// verifyCommits checks n commits in `git cat-file --batch` output.
func (b *Bridge) verifyCommits(r *bufio.Reader, n int) string {
	for range n {
		id, raw, err := readBatchObject(r)
		if err != nil {
			b.log.Warn("git: parse cat-file output", "err", err)
			return "push refused: cannot read the pushed commits"
		}
		if msg := b.verifyCommit(id, raw); msg != "" {
			return msg
		}
	}
	return ""
}

// verifyCommit returns why commit id is not acceptable, or "".
func (b *Bridge) verifyCommit(id string, raw []byte) string {
	short := id[:min(len(id), 12)]
	payload, sig, ok := SplitSignedCommit(raw)
	if !ok {
		return fmt.Sprintf("push refused: commit %s is not signed; this repository requires signed commits", short)
	}
	pk, err := b.opts.VerifySignature(payload, sig)
	if err != nil {
		return fmt.Sprintf("push refused: commit %s has an invalid signature: %v", short, err)
	}
	if !b.opts.IsMember(pk) {
		return fmt.Sprintf("push refused: commit %s is signed by %s, who is not a workspace member",
			short, signer.EncodeNPub(pk))
	}
	return ""
}

// readBatchObject reads one "<id> <type> <size>\n<content>\n" record.
func readBatchObject(r *bufio.Reader) (id string, content []byte, err error) {
	head, err := r.ReadString('\n')
	if err != nil {
		return "", nil, err
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[1] != "commit" {
		return "", nil, fmt.Errorf("unexpected cat-file header %q", strings.TrimSpace(head))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return "", nil, errors.New("bad object size")
	}
	content = make([]byte, size+1)
	if _, err := io.ReadFull(r, content); err != nil {
		return "", nil, err
	}
	return f[0], content[:size], nil
}
