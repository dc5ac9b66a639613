package interop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
)

// The official MCP TypeScript SDK client runs every built-in tool over
// `toolbus tools --stdio`.
func TestTypeScriptClientRunsToolsOverStdio(t *testing.T) {
	RequireJS(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	bin := testutil.Binary(t, "toolbus")
	res, err := RunStdioClient(t, []string{bin, "tools", "--stdio", "--workdir", dir}, dir, Actions(
		Action{Op: "list"},
		Action{Op: "call", Name: "shell", Args: map[string]any{"command": "rg -n two a.txt"}},
		Action{Op: "call", Name: "read_file", Args: map[string]any{"path": "a.txt"}},
		Action{Op: "call", Name: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}},
		Action{Op: "call", Name: "todo", Args: map[string]any{"items": []map[string]any{{"text": "ship", "done": true}}}},
		Action{Op: "call", Name: "_Stop"},
	))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Instructions, "Detected stack: go") {
		t.Fatalf("instructions: %q", res.Instructions)
	}
	want := []string{"shell", "read_file", "str_replace", "view_image", "todo", "_Stop", "_PostCompact"}
	for _, name := range want {
		if !strings.Contains(strings.Join(res.Steps[0].Tools, ","), name) {
			t.Fatalf("tools/list lacks %s: %v", name, res.Steps[0].Tools)
		}
	}
	checks := map[int]string{1: "2:two", 2: "1:one", 3: "+2", 4: "ship"}
	for i, want := range checks {
		if !strings.Contains(string(res.Steps[i].Result), want) {
			t.Fatalf("step %d (%s): want %q in %s", i, res.Steps[i].Name, want, res.Steps[i].Result)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	if string(data) != "one\n2\n" {
		t.Fatalf("str_replace did not edit the file: %q", data)
	}
}
