package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shellNoticeRE parses the first line of a truncated stream.
var shellNoticeRE = regexp.MustCompile(`^\[(stdout|stderr) truncated: showing the last (\d+) bytes of (\d+) bytes \((\d+) lines\); (.*)\]\n`)

// parseNotice checks a truncated stream's text and returns the shown byte
// count, the total byte and line counts and the rest of the notice.
func parseNotice(t *testing.T, text string) (shown, total, lines int, rest string) {
	t.Helper()
	m := shellNoticeRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no notice line: %.200q", text)
	}
	shown, _ = strconv.Atoi(m[2])
	total, _ = strconv.Atoi(m[3])
	lines, _ = strconv.Atoi(m[4])
	if body := text[len(m[0]):]; len(body) != shown || shown > tailBytes {
		t.Fatalf("notice says %d bytes shown, body has %d (limit %d)", shown, len(body), tailBytes)
	}
	return shown, total, lines, m[5]
}

func TestShellLongOutputTail(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	_, out := callShell(t, cs, map[string]any{"command": "seq 1 200000; echo done >&2"})
	var full bytes.Buffer
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	want := full.Bytes()
	if !out.StdoutTruncated || out.StderrTruncated || out.Stderr != "done\n" {
		t.Fatalf("got truncated=%v/%v stderr=%q", out.StdoutTruncated, out.StderrTruncated, out.Stderr)
	}
	_, total, lines, rest := parseNotice(t, out.Stdout)
	if total != len(want) || lines != 200000 {
		t.Fatalf("notice counts %d bytes / %d lines, want %d / 200000", total, lines, len(want))
	}
	wantPath := filepath.Join(e.SessionDir, "artifacts", "000001.stdout.txt")
	if out.StdoutArtifact != wantPath || rest != "full output in "+wantPath {
		t.Fatalf("artifact %q, notice %q", out.StdoutArtifact, rest)
	}
	body := out.Stdout[strings.IndexByte(out.Stdout, '\n')+1:]
	if !strings.HasSuffix(body, "\n199999\n200000\n") || !strings.HasSuffix(string(want), body) {
		t.Fatalf("the tail must be the end of the output, from a line start: %.60q", body)
	}
	got, err := os.ReadFile(wantPath)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("artifact holds %d bytes, want all %d (%v)", len(got), len(want), err)
	}
	wantFileMode(t, wantPath, 0o600)
	wantFileMode(t, filepath.Dir(wantPath), 0o700|os.ModeDir)
}

// wantFileMode checks a file's permissions.
func wantFileMode(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if info, err := os.Stat(p); err != nil || info.Mode() != mode {
		t.Errorf("%s: mode %v, want %v (%v)", p, info.Mode(), mode, err)
	}
}

func TestShellModelLimitEdges(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	cases := []struct {
		cmd       string
		truncated bool
	}{
		{fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a", modelMaxBytes), false},
		{fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a", modelMaxBytes+1), true},
		{fmt.Sprintf("seq %d", modelMaxLines), false},
		{fmt.Sprintf("seq %d", modelMaxLines+1), true},
		{fmt.Sprintf("seq %d >&2", modelMaxLines+1), true},
	}
	for _, c := range cases {
		_, out := callShell(t, cs, map[string]any{"command": c.cmd})
		text, truncated, artifact := out.Stdout, out.StdoutTruncated, out.StdoutArtifact
		if strings.Contains(c.cmd, ">&2") {
			text, truncated, artifact = out.Stderr, out.StderrTruncated, out.StderrArtifact
		}
		if truncated != c.truncated || (artifact != "") != c.truncated {
			t.Errorf("%s: truncated=%v artifact=%q", c.cmd, truncated, artifact)
		}
		if c.truncated {
			parseNotice(t, text)
		}
	}
}

func TestShellCaptureCap(t *testing.T) {
	cs := connectShell(t, shellEnvForTest(t))
	const produced = 12 << 20
	_, out := callShell(t, cs, map[string]any{"command": fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x; echo end", produced)})
	if !out.StdoutTruncated || out.ExitCode != 0 {
		t.Fatalf("got %+v", out.Notes)
	}
	_, total, _, rest := parseNotice(t, out.Stdout)
	if total != produced+4 || !strings.HasSuffix(out.Stdout, "xxxend\n") {
		t.Fatalf("the whole stream is counted and its true end shown: total %d, %q", total, out.Stdout[len(out.Stdout)-10:])
	}
	if !strings.Contains(rest, fmt.Sprintf("only the first %d bytes", captureMax)) {
		t.Errorf("notice should say the artifact is incomplete: %q", rest)
	}
	if info, err := os.Stat(out.StdoutArtifact); err != nil || info.Size() != captureMax {
		t.Fatalf("artifact size %v, want %d (%v)", info.Size(), captureMax, err)
	}
}

func TestShellArtifactsKeepNewestCalls(t *testing.T) {
	e := shellEnvForTest(t)
	cs := connectShell(t, e)
	_, out := callShell(t, cs, map[string]any{"command": "echo small"})
	if out.StdoutArtifact != "" {
		t.Fatal("a whole output is not saved")
	}
	for i := 0; i < 10; i++ {
		_, out = callShell(t, cs, map[string]any{"command": "seq 3000; seq 3000 >&2"})
		if out.StdoutArtifact == "" || out.StderrArtifact == "" {
			t.Fatalf("call %d: no artifacts: %+v", i, out.Notes)
		}
	}
	entries, err := os.ReadDir(filepath.Join(e.SessionDir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	// Call 1 was "echo small"; calls 2..11 wrote artifacts; 4..11 remain.
	var want []string
	for id := 4; id <= 11; id++ {
		want = append(want, fmt.Sprintf("%06d.stderr.txt", id), fmt.Sprintf("%06d.stdout.txt", id))
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("artifacts left:\n%v\nwant:\n%v", names, want)
	}
}

func TestShellNoSessionDir(t *testing.T) {
	e := shellEnvForTest(t)
	e.SessionDir = ""
	cs := connectShell(t, e)
	_, out := callShell(t, cs, map[string]any{"command": "seq 3000"})
	_, _, _, rest := parseNotice(t, out.Stdout)
	if !out.StdoutTruncated || out.StdoutArtifact != "" || !strings.Contains(rest, "could not be saved") {
		t.Fatalf("without a session directory: %+v, %q", out.StdoutArtifact, rest)
	}
}
