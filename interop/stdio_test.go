package interop

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
)

// stdioToolResult is the part of a CallToolResult the test looks at.
type stdioToolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
}

// text joins the text contents.
func (r stdioToolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// The official MCP TypeScript SDK client runs every built-in tool over
// `toolbus tools --stdio`.
func TestTypeScriptClientRunsToolsOverStdio(t *testing.T) {
	RequireJS(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.SetNRGBA(1, 1, color.NRGBA{200, 10, 20, 255})
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "dot.png"), pngData.Bytes(), 0o644)
	bin := testutil.Binary(t, "toolbus")
	todo := func(items ...map[string]any) map[string]any { return map[string]any{"items": items} }
	res, err := RunStdioClient(t, []string{bin, "tools", "--stdio", "--workdir", dir}, dir, Actions(
		Action{Op: "list"},
		Action{Op: "call", Name: "shell", Args: map[string]any{"command": "rg -n two a.txt"}},
		Action{Op: "call", Name: "read_file", Args: map[string]any{"path": "a.txt"}},
		Action{Op: "call", Name: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}},
		Action{Op: "call", Name: "view_image", Args: map[string]any{"path": "dot.png"}},
		Action{Op: "call", Name: "todo", Args: todo(map[string]any{"text": "ship", "done": false}, map[string]any{"text": "test", "done": true})},
		Action{Op: "call", Name: "_Stop"},
		Action{Op: "call", Name: "_PostCompact"},
		Action{Op: "call", Name: "todo", Args: todo(map[string]any{"text": "ship", "done": true}, map[string]any{"text": "test", "done": true})},
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
	if len(res.Steps) != 10 {
		t.Fatalf("want 10 steps, got %d", len(res.Steps))
	}
	results := make([]stdioToolResult, len(res.Steps))
	for i, s := range res.Steps[1:] {
		if err := json.Unmarshal(s.Result, &results[i+1]); err != nil {
			t.Fatalf("step %d (%s): %v: %s", i+1, s.Name, err, s.Result)
		}
		if results[i+1].IsError {
			t.Fatalf("step %d (%s) failed: %s", i+1, s.Name, s.Result)
		}
	}
	checks := map[int][]string{
		1: {"2:two"},
		2: {"1:one"},
		3: {"+2"},
		4: {"dot.png", "3×2 png", "image/png"},
		5: {"ship"},
		6: {"You have open todo items. Keep working.", "- [ ] ship", "- [x] test"},
		7: {"Todo list (1 of 2 done)", "- [ ] ship", "- [x] test"},
		8: {"2 of 2 done"},
	}
	for i, wants := range checks {
		for _, want := range wants {
			if !strings.Contains(results[i].text(), want) {
				t.Errorf("step %d (%s): want %q in %s", i, res.Steps[i].Name, want, res.Steps[i].Result)
			}
		}
	}
	if got := results[9].text(); got != "" {
		t.Errorf("_Stop with every item done should be empty, got %q", got)
	}

	// view_image returned the PNG itself as MCP image content.
	var image64 string
	for _, c := range results[4].Content {
		if c.Type == "image" && c.MIMEType == "image/png" {
			image64 = c.Data
		}
	}
	decoded, err := base64.StdEncoding.DecodeString(image64)
	if err != nil || image64 == "" {
		t.Fatalf("view_image: no PNG image content (%v): %s", err, res.Steps[4].Result)
	}
	got, err := png.Decode(bytes.NewReader(decoded))
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Bounds(); b.Dx() != 3 || b.Dy() != 2 {
		t.Fatalf("view_image: image is %v, want 3×2", b)
	}
	if r, g, b, _ := got.At(1, 1).RGBA(); r>>8 != 200 || g>>8 != 10 || b>>8 != 20 {
		t.Errorf("view_image: pixel (1,1) is %d,%d,%d", r>>8, g>>8, b>>8)
	}

	data, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	if string(data) != "one\n2\n" {
		t.Fatalf("str_replace did not edit the file: %q", data)
	}
}
