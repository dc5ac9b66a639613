package fallback

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain dispatches on argv[0] like toolbus does, so that the test
// binary itself can stand in for rg and tree through Install's symlinks.
func TestMain(m *testing.M) {
	switch name := filepath.Base(os.Args[0]); name {
	case "rg", "tree":
		os.Exit(Main(name, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// noRealTools points PATH at an empty directory, so Main always falls
// back to the built-ins.
func noRealTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(BinDirEnv, "")
}

// runMain runs Main and returns its exit code and output.
func runMain(name string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Main(name, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestInstall(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "private", "bin")
	for _, self := range []string{"/usr/bin/toolbus-old", "/usr/bin/toolbus", "/usr/bin/toolbus"} {
		if err := Install(bin, self); err != nil {
			t.Fatal(err)
		}
		for _, name := range Names {
			if got, err := os.Readlink(filepath.Join(bin, name)); err != nil || got != self {
				t.Fatalf("%s -> %q (%v), want %s", name, got, err, self)
			}
		}
	}
	if info, err := os.Stat(bin); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("bin dir mode %v (%v), want 0700", info.Mode(), err)
	}
	entries, _ := os.ReadDir(bin)
	if len(entries) != 2 {
		t.Fatalf("bin holds %d entries, want rg and tree only", len(entries))
	}
}

func TestMainForwardsToRealProgram(t *testing.T) {
	real, shim := t.TempDir(), t.TempDir()
	writeScript(t, real, "rg", `echo "real rg: $0 $*"; echo warn >&2; exit 3`)
	writeScript(t, shim, "rg", `echo "the shim itself must be skipped"; exit 99`)
	t.Setenv("PATH", shim+string(os.PathListSeparator)+real)
	t.Setenv(BinDirEnv, shim)
	code, out, errOut := runMain("rg", "-n", "pat tern")
	if code != 3 || out != "real rg: "+filepath.Join(real, "rg")+" -n pat tern\n" || errOut != "warn\n" {
		t.Fatalf("code %d, out %q, err %q", code, out, errOut)
	}
}

func TestMainSkipsItselfOnPath(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.Symlink(self, filepath.Join(other, "tree")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", other)
	t.Setenv(BinDirEnv, "")
	if got := findReal("tree", other); got != "" {
		t.Fatalf("a link to this executable was taken for the real tree: %s", got)
	}
}

func TestMainUnknownName(t *testing.T) {
	if code, _, errOut := runMain("grep", "x"); code != 2 || !strings.Contains(errOut, "no fallback") {
		t.Fatalf("code %d, %q", code, errOut)
	}
}

// TestArgv0Dispatch runs rg and tree the way a shell call does: through
// the private bin directory, with no real rg or tree on PATH.
func TestArgv0Dispatch(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := Install(bin, self); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nneedle\n"), 0o644)
	cmd := exec.Command("/bin/sh", "-c", "rg -n needle; echo rg=$?; tree; echo | rg -c x; echo rg=$?")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, BinDirEnv + "=" + bin}
	out, err := cmd.CombinedOutput()
	want := "a.txt:2:needle\nrg=0\n.\n└── a.txt\n\n0 directories, 1 file\n" +
		"rg: unsupported flag -c (fallback rg)\nrg: " + rgSupported + "\nrg=2\n"
	if err != nil || string(out) != want {
		t.Fatalf("got (%v):\n%s\nwant:\n%s", err, out, want)
	}
}
