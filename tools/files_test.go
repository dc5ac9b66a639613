package tools

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newTestEnv builds an Env over a fresh workdir, as server.go does.
func newTestEnv(t *testing.T, confine bool) *Env {
	t.Helper()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &Env{Workdir: wd, Confine: confine, Root: root, SessionDir: t.TempDir(),
		Log: slog.New(slog.DiscardHandler)}
}

// connect serves the given tools to a real go-sdk client over in-memory
// transports.
func connect(t *testing.T, e *Env, register ...func(*mcp.Server, *Env)) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "tools-test", Version: "1"}, nil)
	for _, r := range register {
		r(s, e)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// resultText joins a result's text contents.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wantOK fails unless res succeeded, and returns its text.
func wantOK(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", resultText(res))
	}
	return resultText(res)
}

// wantErr fails unless res is a classified error with code whose message
// contains every part; it returns the message.
func wantErr(t *testing.T, res *mcp.CallToolResult, code string, parts ...string) string {
	t.Helper()
	text := resultText(res)
	if !res.IsError {
		t.Fatalf("want %s error, got success: %.300s", code, text)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	body, _ := sc["error"].(map[string]any)
	msg, _ := body["message"].(string)
	if body["code"] != code || text != code+": "+msg {
		t.Fatalf("want code %s, got structured %v, text %q", code, res.StructuredContent, text)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error message %q does not contain %q", msg, p)
		}
	}
	return msg
}

// writeFile writes a file under dir, failing the test on error.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // umask would mask mode
		t.Fatal(err)
	}
	return p
}

// toolDescription finds a registered tool's description.
func toolDescription(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == name {
			return tool.Description
		}
	}
	t.Fatalf("tool %s not listed", name)
	return ""
}

func TestDescriptionsStateConfinementOnlyWhenEnforced(t *testing.T) {
	for _, confine := range []bool{true, false} {
		cs := connect(t, newTestEnv(t, confine), registerReadFile, registerStrReplace, registerViewImage)
		for name, suffix := range map[string]string{"read_file": "Prefer over cat/head/tail", "str_replace": "Prefer over sed/awk", "view_image": ""} {
			d := toolDescription(t, cs, name)
			if !strings.HasSuffix(d, suffix) {
				t.Errorf("%s description does not end with %q: %q", name, suffix, d)
			}
			if got := strings.Contains(d, "confined to the working directory"); got != confine {
				t.Errorf("confine=%v: %s description mentions confinement: %v", confine, name, got)
			}
		}
	}
}

// TestConfinement covers every file tool: ../, absolute paths and
// symlinks out of the workdir are refused when confined, and allowed (for
// an absolute path) when not.
func TestConfinement(t *testing.T) {
	outside := t.TempDir()
	secret := writeFile(t, outside, "secret.txt", "secret\n", 0o644)
	pngPath := filepath.Join(outside, "img.png")
	if err := os.WriteFile(pngPath, encodePNG(t, testImage(10, 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, true)
	for _, l := range []struct{ link, target string }{{"out.txt", secret}, {"out.png", pngPath}} {
		if err := os.Symlink(l.target, filepath.Join(e.Workdir, l.link)); err != nil {
			t.Fatal(err)
		}
	}
	rel, _ := filepath.Rel(e.Workdir, secret)
	relPNG, _ := filepath.Rel(e.Workdir, pngPath)
	cs := connect(t, e, registerReadFile, registerStrReplace, registerViewImage)
	edit := func(p string) map[string]any {
		return map[string]any{"path": p, "old_str": "secret", "new_str": "leaked"}
	}
	for _, p := range []string{rel, secret, "out.txt", "sub/../" + rel} {
		wantErr(t, call(t, cs, "read_file", map[string]any{"path": p}), codeUnauthorized, "outside the working directory")
		wantErr(t, call(t, cs, "str_replace", edit(p)), codeUnauthorized, "outside the working directory")
	}
	for _, p := range []string{relPNG, pngPath, "out.png"} {
		wantErr(t, call(t, cs, "view_image", map[string]any{"path": p}), codeUnauthorized, "outside the working directory")
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Fatalf("outside file changed: %q", b)
	}

	free := connect(t, newTestEnv(t, false), registerReadFile, registerStrReplace, registerViewImage)
	if got := wantOK(t, call(t, free, "read_file", map[string]any{"path": secret})); !strings.Contains(got, "1:secret") {
		t.Fatalf("unconfined read: %q", got)
	}
	wantOK(t, call(t, free, "str_replace", edit(secret)))
	if b, _ := os.ReadFile(secret); string(b) != "leaked\n" {
		t.Fatalf("unconfined edit: %q", b)
	}
	wantOK(t, call(t, free, "view_image", map[string]any{"path": pngPath}))
}

// TestSymlinkInsideWorkdir: a confined server follows links that stay in.
func TestSymlinkInsideWorkdir(t *testing.T) {
	e := newTestEnv(t, true)
	writeFile(t, e.Workdir, "real.txt", "hello\n", 0o644)
	if err := os.Symlink("real.txt", filepath.Join(e.Workdir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e, registerReadFile, registerStrReplace)
	if got := wantOK(t, call(t, cs, "read_file", map[string]any{"path": "link.txt"})); !strings.Contains(got, "1:hello") {
		t.Fatalf("read through link: %q", got)
	}
	wantOK(t, call(t, cs, "str_replace", map[string]any{"path": "link.txt", "old_str": "hello", "new_str": "bye"}))
	if b, _ := os.ReadFile(filepath.Join(e.Workdir, "real.txt")); string(b) != "bye\n" {
		t.Fatalf("target not edited: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(e.Workdir, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
}
