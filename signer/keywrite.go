package signer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Retry budget for EnsureKeyFile reading a file another process has created
// but not yet written.
const (
	ensureRetries    = 20
	ensureRetryDelay = 25 * time.Millisecond
)

// WriteKeyFile writes l's secret as "nsec1…\n" to a new file of mode 0600,
// creating missing parent directories with mode 0700. It never overwrites:
// an existing path yields an error wrapping ErrKeyFileExists.
func WriteKeyFile(path string, l *Local) error {
	if l == nil {
		return errors.New("write key file: nil key")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("key file %s: create directory: %w", path, err)
	}
	// O_EXCL makes "does it exist" and "create it" one atomic step, so two
	// writers can never both believe they created the file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s; refusing to overwrite it (move it away or pick another path)",
			ErrKeyFileExists, path)
	}
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	if err := writeKey(f, l); err != nil {
		// The file is ours (O_EXCL); a half-written key file would only turn
		// into a confusing parse error later.
		_ = os.Remove(path)
		return fmt.Errorf("key file %s: %w", path, err)
	}
	return nil
}

// writeKey fixes the mode, writes the nsec in one write, syncs and closes.
// The explicit fchmod matters because the mode given to open is filtered by
// the umask (a umask of 0777 would leave an unreadable 0000 file).
func writeKey(f *os.File, l *Local) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.Write([]byte(l.NSec() + "\n"))
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// EnsureKeyFile reads the key at path, or generates and writes one if there
// is no file; created reports which. It is how the relay gets its own key on
// first start. When two processes race, the one whose O_EXCL create loses
// reads the winner's key, so both end up with the same identity.
func EnsureKeyFile(path string) (l *Local, created bool, err error) {
	l, err = readSettled(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return l, false, err
	}
	if l, err = Generate(); err != nil {
		return nil, false, err
	}
	err = WriteKeyFile(path, l)
	if errors.Is(err, ErrKeyFileExists) {
		l, err = readSettled(path)
		return l, false, err
	}
	if err != nil {
		return nil, false, err
	}
	return l, true, nil
}

// readSettled is ReadKeyFile that waits, briefly, while the file is empty:
// between a concurrent creator's O_EXCL open and its write, it is. A file
// still empty after the budget (say, left by a crash) is reported as such.
func readSettled(path string) (*Local, error) {
	for i := 0; ; i++ {
		l, err := ReadKeyFile(path)
		if !errors.Is(err, errKeyFileEmpty) || i == ensureRetries {
			return l, err
		}
		time.Sleep(ensureRetryDelay)
	}
}
