package main_test

import (
	"bufio"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// startWorkerProcess runs `toolbus worker` as key (given through
// NOSTR_PRIVATE_KEY, the way a secret manager would) on workdir.
func startWorkerProcess(t *testing.T, r *testutil.Relay, key *signer.Local, workdir string) {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "worker", "--relay", r.URL, "--workdir", workdir)
	cmd.Env = append(os.Environ(), "NOSTR_PRIVATE_KEY="+key.NSec(), "XDG_CONFIG_HOME="+t.TempDir())
	waitForLine(t, cmd, "worker ready")
}

// waitForLine starts cmd and waits for a stderr line containing want.
func waitForLine(t *testing.T, cmd *exec.Cmd, want string) {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		once := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("%s: %s", filepath.Base(cmd.Path), sc.Text())
			if !once && strings.Contains(sc.Text(), want) {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q from %s", want, cmd.Path)
	}
}

// Every built-in tool, called with `toolbus call` through the relay on a
// `toolbus worker` process.
func TestWorkerToolsEndToEnd(t *testing.T) {
	r := testutil.StartRelay(t, func(c *config.Config) { c.Limits.EventsPerSecond = 1000 })
	workdir := t.TempDir()
	os.WriteFile(filepath.Join(workdir, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644)
	writePNG(t, filepath.Join(workdir, "dot.png"))
	startWorkerProcess(t, r, r.Member, workdir)
	keyFile := keyFileFor(t, r.Admin)
	call := func(tool, args string) (string, int) {
		return runCLI(t, "call", "--relay", r.URL, "--key-file", keyFile, "--to", r.Member.NPub(), tool, args)
	}
	cases := []struct{ tool, args, want string }{
		{"shell", `{"command":"echo hello from $(basename $PWD)"}`, "hello from " + filepath.Base(workdir)},
		// NOSTR_PRIVATE_KEY was the worker's secret: its children never see it.
		{"shell", `{"command":"echo key:${NOSTR_PRIVATE_KEY-unset}"}`, "key:unset"},
		{"read_file", `{"path":"notes.txt"}`, "2:beta"},
		{"str_replace", `{"path":"notes.txt","old_str":"beta","new_str":"BETA"}`, "+BETA"},
		{"read_file", `{"path":"notes.txt","offset":2,"limit":1}`, "2:BETA"},
		{"view_image", `{"path":"dot.png"}`, `"image/png"`},
		{"todo", `{"items":[{"text":"write tests","done":false}]}`, "write tests"},
		{"_Stop", `{}`, "You have open todo items"},
		{"_PostCompact", `{}`, "write tests"},
	}
	for _, tc := range cases {
		out, code := call(tc.tool, tc.args)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Fatalf("%s %s: exit %d, want %q in\n%s", tc.tool, tc.args, code, tc.want, out)
		}
	}
	out, code := call("read_file", `{"path":"../outside.txt"}`)
	if code != 1 || !strings.Contains(out, "unauthorized") {
		t.Fatalf("confinement: exit %d\n%s", code, out)
	}
}

func writePNG(t *testing.T, path string) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
