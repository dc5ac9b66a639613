package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// touch creates empty files in dir.
func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDetectStackEachMarker(t *testing.T) {
	cases := map[string]string{
		"Cargo.toml":       "rust (cargo)",
		"package.json":     "node",
		"go.mod":           "go",
		"pyproject.toml":   "python",
		"requirements.txt": "python",
		"Gemfile":          "ruby",
		"pom.xml":          "java",
		"build.gradle":     "java",
		"build.gradle.kts": "java",
	}
	for marker, want := range cases {
		dir := t.TempDir()
		touch(t, dir, marker)
		if got := DetectStack(dir); got != want {
			t.Errorf("%s: detected %q, want %q", marker, got, want)
		}
	}
	if got := DetectStack(t.TempDir()); got != "unknown" {
		t.Errorf("no marker: detected %q, want unknown", got)
	}
	// A marker is a file name in the directory itself, not below it.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	touch(t, dir, "sub/go.mod", "README.md", "main.go")
	if got := DetectStack(dir); got != "unknown" {
		t.Errorf("markers only below the directory: detected %q, want unknown", got)
	}
}

// TestDetectStackPrecedence pins the order stackMarkers defines when
// several markers exist (a Rust crate with a package.json for its web
// front end is a Rust project): Cargo.toml, then package.json, go.mod,
// pyproject.toml, requirements.txt, Gemfile, pom.xml, build.gradle,
// build.gradle.kts. The first marker present wins. The test starts with
// every marker and removes the winner each time.
func TestDetectStackPrecedence(t *testing.T) {
	order := []struct{ file, stack string }{
		{"Cargo.toml", "rust (cargo)"},
		{"package.json", "node"},
		{"go.mod", "go"},
		{"pyproject.toml", "python"},
		{"requirements.txt", "python"},
		{"Gemfile", "ruby"},
		{"pom.xml", "java"},
		{"build.gradle", "java"},
		{"build.gradle.kts", "java"},
	}
	dir := t.TempDir()
	for _, m := range order {
		touch(t, dir, m.file)
	}
	for _, m := range order {
		if got := DetectStack(dir); got != m.stack {
			t.Fatalf("with %s and every later marker: detected %q, want %q", m.file, got, m.stack)
		}
		if err := os.Remove(filepath.Join(dir, m.file)); err != nil {
			t.Fatal(err)
		}
	}
	if got := DetectStack(dir); got != "unknown" {
		t.Fatalf("after removing every marker: %q", got)
	}
	// Pairs where the later marker was created first: creation order
	// does not matter, only the precedence.
	for _, pair := range [][2]int{{1, 0}, {2, 1}, {5, 3}, {8, 5}, {6, 2}} {
		dir := t.TempDir()
		touch(t, dir, order[pair[0]].file, order[pair[1]].file)
		if got, want := DetectStack(dir), order[min(pair[0], pair[1])].stack; got != want {
			t.Errorf("%s + %s: detected %q, want %q", order[pair[0]].file, order[pair[1]].file, got, want)
		}
	}
}

// serverInstructions builds the real server with New and returns the
// instructions a client receives at initialisation.
func serverInstructions(t *testing.T, opts Options) string {
	t.Helper()
	if opts.Self == "" {
		opts.Self = "/bin/true"
	}
	tl, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := tl.Server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs.InitializeResult().Instructions
}

func TestServerInstructions(t *testing.T) {
	t.Setenv("TOOLBUS_SHELL", "")
	t.Setenv("SHELL", "/bin/sh")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	touch(t, dir, "Cargo.toml")
	got := serverInstructions(t, Options{Workdir: dir, SessionDir: t.TempDir()})
	for _, want := range []string{
		"Working directory: " + dir + "\n",
		"Detected stack: rust (cargo)\n",
		"Shell: /bin/sh\n",
		"Pass workdir per call rather than cd",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "confined") {
		t.Errorf("unconfined server claims confinement:\n%s", got)
	}
	confined := serverInstructions(t, Options{Workdir: dir, SessionDir: t.TempDir(), Confine: true})
	if !strings.Contains(confined, "File tools are confined to the working directory.") {
		t.Errorf("confined server does not say so:\n%s", confined)
	}
	none := serverInstructions(t, Options{Workdir: t.TempDir(), SessionDir: t.TempDir()})
	if !strings.Contains(none, "Detected stack: unknown\n") {
		t.Errorf("no marker: %s", none)
	}
}

func TestServerInstructionsShellOverride(t *testing.T) {
	t.Setenv("SHELL", "/bin/bash")
	t.Setenv("TOOLBUS_SHELL", "/opt/custom/zsh")
	got := serverInstructions(t, Options{Workdir: t.TempDir(), SessionDir: t.TempDir()})
	if !strings.Contains(got, "Shell: /opt/custom/zsh\n") {
		t.Errorf("TOOLBUS_SHELL is not the shell in use:\n%s", got)
	}
	got = serverInstructions(t, Options{Workdir: t.TempDir(), SessionDir: t.TempDir(), Shell: "/bin/explicit"})
	if !strings.Contains(got, "Shell: /bin/explicit\n") {
		t.Errorf("Options.Shell should beat TOOLBUS_SHELL:\n%s", got)
	}
}

func TestPickShell(t *testing.T) {
	for _, c := range []struct{ explicit, toolbus, shell, want string }{
		{"", "", "/bin/bash", "/bin/bash"},
		{"", "", "/usr/bin/zsh", "/usr/bin/zsh"},
		{"", "", "/bin/sh", "/bin/sh"},
		{"", "", "/usr/bin/fish", "/bin/sh"}, // not POSIX-like: the fallback
		{"", "", "", "/bin/sh"},
		{"", "/usr/bin/fish", "/bin/bash", "/usr/bin/fish"}, // TOOLBUS_SHELL is taken as is
		{"/bin/dash", "/usr/bin/fish", "/bin/bash", "/bin/dash"},
	} {
		t.Setenv("TOOLBUS_SHELL", c.toolbus)
		t.Setenv("SHELL", c.shell)
		if got := pickShell(c.explicit); got != c.want {
			t.Errorf("pickShell(%q) with TOOLBUS_SHELL=%q SHELL=%q = %q, want %q", c.explicit, c.toolbus, c.shell, got, c.want)
		}
	}
}
