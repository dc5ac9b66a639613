package signer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadKeyFileModes(t *testing.T) {
	tests := []struct {
		perm os.FileMode
		ok   bool
	}{
		{0o600, true},
		{0o400, true},
		{0o644, false},
		{0o640, false},
		{0o604, false},
		{0o660, false},
		{0o700, true}, // executable is odd but exposes nothing
	}
	for _, tt := range tests {
		t.Run(tt.perm.String(), func(t *testing.T) {
			path := writeKeyFile(t, t.TempDir(), "key", vecNsec+"\n", tt.perm)
			l, err := ReadKeyFile(path)
			if tt.ok {
				if err != nil || l.secretHex() != vecHex {
					t.Fatalf("ReadKeyFile: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrKeyFileMode) {
				t.Fatalf("err = %v, want ErrKeyFileMode", err)
			}
			want := "chmod 600 " + path
			if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, path) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		})
	}
}

func TestReadKeyFileModeMessage(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", vecHex, 0o644)
	_, err := ReadKeyFile(path)
	want := "key file " + path + " has mode 0644"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}

func TestReadKeyFileQuotesPathInFix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my keys")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := writeKeyFile(t, dir, "key", vecHex, 0o644)
	_, err := ReadKeyFile(path)
	if want := "chmod 600 '" + path + "'"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}

func TestReadKeyFileSize(t *testing.T) {
	dir := t.TempDir()
	padded := vecNsec + strings.Repeat(" ", MaxKeyFileSize-len(vecNsec))
	if l, err := ReadKeyFile(writeKeyFile(t, dir, "max", padded, 0o600)); err != nil || l.secretHex() != vecHex {
		t.Fatalf("%d-byte file: %v", MaxKeyFileSize, err)
	}
	_, err := ReadKeyFile(writeKeyFile(t, dir, "big", padded+" ", 0o600))
	if !errors.Is(err, ErrKeyFileSize) || !strings.Contains(err.Error(), "256") {
		t.Fatalf("257-byte file: err = %v, want ErrKeyFileSize naming the limit", err)
	}
}

func TestReadKeyFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{sub, fifo} {
		done := make(chan error, 1)
		go func() { _, err := ReadKeyFile(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: err = %v, want not a regular file", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadKeyFile blocked", path)
		}
	}
}

func TestReadKeyFileFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := writeKeyFile(t, dir, "key", vecHex, 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(link); err != nil {
		t.Fatal(err)
	}
	// The mode checked is the target's, not the link's 0777.
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(link); !errors.Is(err, ErrKeyFileMode) {
		t.Fatalf("err = %v, want ErrKeyFileMode", err)
	}
}

func TestReadKeyFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.key")
	_, err := ReadKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
	if want := "toolbus key new --out " + path; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not suggest %q", err, want)
	}
}

func TestReadKeyFileInvalidContent(t *testing.T) {
	contents := []string{
		"not a key at all",
		vecHex[:63] + "x", // almost a key: the worst thing to echo
		strings.Replace(vecNsec, "nsec", "npub", 1),
	}
	for _, content := range contents {
		path := writeKeyFile(t, t.TempDir(), "key", content, 0o600)
		_, err := ReadKeyFile(path)
		if !errors.Is(err, ErrInvalidSecret) {
			t.Fatalf("err = %v, want ErrInvalidSecret", err)
		}
		msg := err.Error()
		want := "key file " + path + ": invalid secret key: want nsec1… or 64 hex characters"
		if msg != want {
			t.Errorf("error = %q, want %q", msg, want)
		}
		if strings.Contains(msg, content) {
			t.Errorf("error %q quotes the file content", msg)
		}
	}
}

func TestReadKeyFileEmpty(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", "", 0o600)
	_, err := ReadKeyFile(path)
	if !errors.Is(err, ErrInvalidSecret) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("err = %v, want ErrInvalidSecret saying empty", err)
	}
}

// withUmask runs f under umask mask. The umask is process-wide, so callers
// must not run in parallel with other tests that create files.
func withUmask(mask int, f func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

func TestWriteKeyFileMode(t *testing.T) {
	l := mustGenerate(t)
	base := t.TempDir()
	path := filepath.Join(base, "a", "b", "key")
	var err error
	withUmask(0, func() { err = WriteKeyFile(path, l) })
	if err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	assertMode(t, filepath.Join(base, "a"), 0o700)
	assertMode(t, filepath.Join(base, "a", "b"), 0o700)
	data, err := os.ReadFile(path)
	if err != nil || string(data) != l.NSec()+"\n" {
		t.Fatalf("content = %q, %v; want the nsec and a newline", data, err)
	}
	back, err := ReadKeyFile(path)
	if err != nil || back.PublicKey() != l.PublicKey() {
		t.Fatalf("read back: %v", err)
	}
}

// TestWriteKeyFileStrictUmask shows the fchmod is needed: umask 0777 alone
// would create a 0000 file.
func TestWriteKeyFileStrictUmask(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	var err error
	withUmask(0o777, func() { err = WriteKeyFile(path, mustGenerate(t)) })
	if err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", path, got, want)
	}
}

func TestWriteKeyFileRefusesOverwrite(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", "precious", 0o600)
	err := WriteKeyFile(path, mustGenerate(t))
	if !errors.Is(err, ErrKeyFileExists) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrKeyFileExists naming the path", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "precious" {
		t.Fatalf("existing file overwritten: %q", data)
	}
	if err := WriteKeyFile(path+"2", nil); err == nil {
		t.Fatal("nil key accepted")
	}
}

func TestEnsureKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "relay.key")
	first, created, err := EnsureKeyFile(path)
	if err != nil || !created {
		t.Fatalf("first EnsureKeyFile: created=%v err=%v", created, err)
	}
	assertMode(t, path, 0o600)
	second, created, err := EnsureKeyFile(path)
	if err != nil || created {
		t.Fatalf("second EnsureKeyFile: created=%v err=%v", created, err)
	}
	if second.PublicKey() != first.PublicKey() {
		t.Fatal("second EnsureKeyFile returned a different key")
	}
}

func TestEnsureKeyFileKeepsChecks(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", vecHex, 0o644)
	if _, _, err := EnsureKeyFile(path); !errors.Is(err, ErrKeyFileMode) {
		t.Fatalf("err = %v, want ErrKeyFileMode", err)
	}
	if data, _ := os.ReadFile(path); string(data) != vecHex {
		t.Fatal("EnsureKeyFile replaced a refused file")
	}
}

func TestEnsureKeyFileRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.key")
	const n = 16
	type result struct {
		pub     string
		created bool
		err     error
	}
	results := make(chan result, n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			l, created, err := EnsureKeyFile(path)
			r := result{created: created, err: err}
			if err == nil {
				r.pub = l.PublicKey()
			}
			results <- r
		}()
	}
	close(start)
	pubs, creators := map[string]bool{}, 0
	for range n {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		pubs[r.pub] = true
		if r.created {
			creators++
		}
	}
	if len(pubs) != 1 || creators != 1 {
		t.Fatalf("%d distinct keys, %d creators; want 1 and 1", len(pubs), creators)
	}
}

// TestEnsureKeyFileWaitsForWriter covers the window in which a racing
// creator's file exists but is still empty.
func TestEnsureKeyFileWaitsForWriter(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", "", 0o600)
	go func() {
		time.Sleep(3 * ensureRetryDelay)
		_ = os.WriteFile(path, []byte(vecNsec+"\n"), 0o600)
	}()
	l, created, err := EnsureKeyFile(path)
	if err != nil || created || l.secretHex() != vecHex {
		t.Fatalf("created=%v err=%v; want the writer's key", created, err)
	}
}

func TestEnsureKeyFileEmptyForever(t *testing.T) {
	path := writeKeyFile(t, t.TempDir(), "key", "", 0o600)
	_, _, err := EnsureKeyFile(path)
	if !errors.Is(err, ErrInvalidSecret) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("err = %v, want an empty-file error", err)
	}
}
