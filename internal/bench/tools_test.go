package bench

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"toolbus/internal/testutil"
)

// TestBigText checks the big file: 10 MiB (read_file's limit) of
// bigLineLen-byte lines.
func TestBigText(t *testing.T) {
	path := filepath.Join(t.TempDir(), bigFile)
	if err := writeBigText(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 10<<20 {
		t.Fatalf("size %v (%v), want 10 MiB", fi.Size(), err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Text()) != bigLineLen-1 {
			t.Fatalf("line %d is %d bytes", n, len(sc.Text()))
		}
	}
	if n != bigLines {
		t.Fatalf("%d lines, want %d", n, bigLines)
	}
}

// TestToolsDirect calls the direct path's tools from the real binary and
// checks their results as the workload does.
func TestToolsDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the toolbus binary")
	}
	dir := t.TempDir()
	if err := writeBigText(filepath.Join(dir, bigFile)); err != nil {
		t.Fatal(err)
	}
	if err := writeSmallText(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := connectStdio(ctx, testutil.Binary(t, "toolbus"), "tools", "--stdio", "--confine", "--workdir", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for name, call := range map[string]func(context.Context) error{
		"shell":      checked(s.call, "shell", shellArgs, checkShell),
		"read big":   checked(s.call, "read_file", readArgs(), checkRead),
		"read small": checked(s.call, "read_file", smallArgs, checkSmall),
	} {
		if err := call(ctx); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The checks refuse a wrong answer.
	if err := checked(s.call, "shell", map[string]any{"command": "false"}, checkShell)(ctx); err == nil {
		t.Error("checkShell accepted `false`")
	}
	if err := checked(s.call, "read_file", map[string]any{"path": bigFile}, checkRead)(ctx); err == nil {
		t.Error("checkRead accepted the file's first window")
	}
	if rss, err := s.rssMB(); err != nil || rss <= 0 {
		t.Errorf("rss %v (%v)", rss, err)
	}
}
