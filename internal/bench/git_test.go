package bench

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateRepo checks the fast-import history: n commits on main, each
// changing one file.
func TestGenerateRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	home := t.TempDir()
	env := gitEnv(home, nil)
	dir := filepath.Join(t.TempDir(), "src.git")
	const n = gitFiles + 50
	if err := generateRepo(ctx, env, dir, n); err != nil {
		t.Fatal(err)
	}
	if got, err := commitCount(ctx, env, dir, "main"); err != nil || got != n {
		t.Fatalf("%d commits (%v), want %d", got, err, n)
	}
	out, err := gitRun(ctx, env, dir, "ls-tree", "-r", "--name-only", "main")
	if err != nil {
		t.Fatal(err)
	}
	if files := strings.Fields(out); len(files) != gitFiles {
		t.Fatalf("%d files, want %d", len(files), gitFiles)
	}
	out, err = gitRun(ctx, env, dir, "show", "--stat", "--format=", "main~7")
	if err != nil || !strings.Contains(out, "1 file changed, 1 insertion(+)") {
		t.Fatalf("a commit does not change one line of one file: %q (%v)", out, err)
	}
	if _, err := gitRun(ctx, env, dir, "fsck", "--no-progress"); err != nil {
		t.Fatal(err)
	}
}
