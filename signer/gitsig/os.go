package gitsig

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

// OSStatusFD opens an inherited file descriptor of this process for status
// lines: the statusFD argument of [Run] in a real program.
//
// It writes with raw write(2) instead of wrapping the descriptor in an
// *os.File, whose finalizer would close a descriptor this code does not own.
func OSStatusFD(fd int) (io.Writer, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return fdWriter(fd), nil
}

// fdWriter writes to a raw file descriptor.
type fdWriter int

func (w fdWriter) Write(p []byte) (int, error) {
	total := 0
	for total < len(p) {
		n, err := syscall.Write(int(w), p[total:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return total, err
		}
		if n <= 0 {
			return total, io.ErrShortWrite
		}
		total += n
	}
	return total, nil
}

// gitConfig returns `git config --get key`, or "" when the key is unset or
// git cannot run. git starts the signing program inside the repository, so
// this sees repository, global and `git -c` settings alike. nostr.keyfile
// is read as a path, so "~/…" expands as in any git path setting.
//
// The child gets no stdin: the payload on stdin belongs to the signer.
func gitConfig(key string) string {
	args := []string{"config", "--get"}
	if key == keyfileKey {
		args = append(args, "--type=path")
	}
	out, err := exec.Command("git", append(args, key)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}
