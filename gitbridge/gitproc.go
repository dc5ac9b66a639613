package gitbridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// errBusy means no git process slot freed up within QueueWait.
var errBusy = errors.New("gitbridge: too many git processes")

// serverConfig is passed as -c to every git the bridge runs. Hooks come
// from our hooks directory (so existing repositories pick up a new hook
// binary without rewriting them); received objects are fsck'ed; gc runs
// in the foreground, inside the timeout and the process cap, rather than
// detaching where nothing bounds it.
func (b *Bridge) serverConfig() []string {
	return []string{
		"-c", "core.hooksPath=" + b.hooksDir,
		"-c", "receive.fsckObjects=true",
		"-c", "gc.autoDetach=false",
		"-c", "receive.advertisePushOptions=false",
	}
}

// baseEnv is the whole environment of a git process: nothing is inherited
// from the server but PATH, so no GIT_* variable, credential or proxy
// setting of the server's environment leaks into git or the hooks.
func (b *Bridge) baseEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + b.homeDir,
		"XDG_CONFIG_HOME=" + b.homeDir,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	}
}

// command prepares git with the server config, env added to baseEnv, and a
// timeout on top of ctx. Cancellation sends SIGTERM, on which git removes
// its lock files, and SIGKILL only if it is still running 5 s later.
func (b *Bridge) command(ctx context.Context, env []string, args ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.GitTimeout)
	argv := append(b.serverConfig(), args...)
	cmd := exec.CommandContext(ctx, b.opts.GitBinary, argv...)
	cmd.Env = append(b.baseEnv(), env...)
	cmd.Dir = b.homeDir
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, cancel
}

// gitOutput runs a short plumbing command in dir and returns its stdout.
// These do not take a process slot: they run inside a request or push that
// already holds one, and waiting for a second slot could deadlock.
func (b *Bridge) gitOutput(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd, cancel := b.command(ctx, env, args...)
	defer cancel()
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out bytes.Buffer
	errb := &capped{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// acquire takes a process slot, waiting at most QueueWait.
func (b *Bridge) acquire(ctx context.Context) (release func(), err error) {
	t := time.NewTimer(b.opts.QueueWait)
	defer t.Stop()
	select {
	case b.sem <- struct{}{}:
		return func() { <-b.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errBusy
	}
}

// capped keeps the first max bytes written to it, for error messages.
type capped struct {
	bytes.Buffer
	max int
}

// Write keeps what fits and reports everything written, so git never
// sees a write error on its stderr.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// protocolEnv validates a Git-Protocol header and returns the GIT_PROTOCOL
// variable for it. Only the characters git uses (key=value items separated
// by colons) pass; anything else is dropped rather than handed to git.
func protocolEnv(h string) []string {
	if h == "" || len(h) > 256 {
		return nil
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !isAlnum(c) && !strings.ContainsRune("=:._-", rune(c)) {
			return nil
		}
	}
	return []string{"GIT_PROTOCOL=" + h}
}

// protocolV2 reports whether the header asks for protocol version 2, the
// highest version named winning, as git's own server does.
func protocolV2(h string) bool {
	for _, item := range strings.Split(h, ":") {
		if item == "version=2" {
			return true // no higher version exists
		}
	}
	return false
}
