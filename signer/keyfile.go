package signer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxKeyFileSize is the largest key file accepted, in bytes. An nsec is 63
// characters; the rest is room for whitespace. Anything bigger is not a key
// file (a misplaced config, a binary), and refusing it keeps an arbitrary
// file from being read into memory.
const MaxKeyFileSize = 256

// errKeyFileEmpty marks an empty key file. EnsureKeyFile tells it apart
// because a racing creator's file is empty until its single write lands.
var errKeyFileEmpty = errors.New("file is empty")

// ReadKeyFile loads a secret key from a file holding nsec1… or 64 hex
// characters. It refuses anything but a regular file of mode 0600 or
// stricter and at most MaxKeyFileSize bytes; each error says how to fix it
// and none quotes the file's content.
func ReadKeyFile(path string) (*Local, error) {
	f, err := openKeyFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Checks run on the open descriptor, not on a separate stat of the path:
	// the file checked is then the file read, even if the path is swapped.
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if err := checkKeyFileInfo(path, fi); err != nil {
		return nil, err
	}
	return readKey(path, f)
}

// openKeyFile opens path for reading. O_NONBLOCK keeps a FIFO at the path
// from blocking the open forever; it is refused by the type check after.
func openKeyFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("key file %s: %w; create one with: toolbus key new --out %s",
			path, fs.ErrNotExist, shellQuote(path))
	}
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	return f, nil
}

// checkKeyFileInfo enforces type, permissions and size.
func checkKeyFileInfo(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("key file %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("key file %s has mode %04o: %w; run: chmod 600 %s",
			path, uint32(perm), ErrKeyFileMode, shellQuote(path))
	}
	if fi.Size() > MaxKeyFileSize {
		return keyFileTooBig(path, fi.Size())
	}
	return nil
}

func keyFileTooBig(path string, size int64) error {
	return fmt.Errorf("key file %s is %d bytes: %w (limit %d); it must hold only an nsec1… or 64-hex key",
		path, size, ErrKeyFileSize, MaxKeyFileSize)
}

// readKey reads at most one byte past the limit, so a file that grew after
// the fstat is still caught, and parses the content. The buffer is cleared
// afterwards: a best effort, since the parsed key stays in memory anyway.
func readKey(path string, r io.Reader) (*Local, error) {
	buf, err := io.ReadAll(io.LimitReader(r, MaxKeyFileSize+1))
	defer clear(buf)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	switch {
	case len(buf) > MaxKeyFileSize:
		return nil, keyFileTooBig(path, int64(len(buf)))
	case len(buf) == 0:
		return nil, fmt.Errorf("key file %s: %w (%w)", path, ErrInvalidSecret, errKeyFileEmpty)
	}
	l, err := ParseSecret(string(buf))
	if err != nil {
		// ParseSecret's error never quotes its input; wrapping only the
		// sentinel keeps that true should ParseSecret ever change.
		return nil, fmt.Errorf("key file %s: %w", path, ErrInvalidSecret)
	}
	return l, nil
}
