package sanitize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// vectorDir holds the shared cases; spec/vectors/sanitizer/README.md
// describes them.
const vectorDir = "../../spec/vectors/sanitizer"

// textCase is one entry of cases.json: Func ("text" when empty, or "line")
// applied to Input must give exactly Want.
type textCase struct {
	Name  string `json:"name"`
	Func  string `json:"func"`
	Input string `json:"input"`
	Want  string `json:"want"`
	Notes string `json:"notes"`
}

// wrapCase is one entry of wrap.json: Items go through Text, then Wrap,
// and the block must be well formed, hold every Inside string between its
// marker lines and hold no Absent string anywhere.
type wrapCase struct {
	Name   string   `json:"name"`
	Items  []string `json:"items"`
	Inside []string `json:"must_contain_inside"`
	Absent []string `json:"must_not_contain"`
	Notes  string   `json:"notes"`
}

// load decodes one vector file, rejecting unknown fields so that a typo in
// a case cannot silently skip a check.
func load(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// textFailure returns why s fails c, or "" when it passes.
func textFailure(s *Sanitizer, c textCase) string {
	var got string
	switch c.Func {
	case "", "text":
		got = s.Text(c.Input)
	case "line":
		got = s.Line(c.Input)
	default:
		return "unknown func " + c.Func
	}
	if got != c.Want {
		return fmt.Sprintf("got  %q\nwant %q", got, c.Want)
	}
	return ""
}

// wrapFailures returns every way in which s fails c.
func wrapFailures(s *Sanitizer, c wrapCase) []string {
	items := make([]string, len(c.Items))
	for i, it := range c.Items {
		items[i] = s.Text(it)
	}
	out := s.Wrap(items)
	_, inner, err := parseBlock(out)
	if err != nil {
		return []string{err.Error()}
	}
	var fails []string
	for _, want := range c.Inside {
		if !strings.Contains(inner, want) {
			fails = append(fails, fmt.Sprintf("%q not inside the block", want))
		}
	}
	for _, bad := range c.Absent {
		if strings.Contains(out, bad) {
			fails = append(fails, fmt.Sprintf("%q present", bad))
		}
	}
	return fails
}

var beginLineRE = regexp.MustCompile(`^` + BeginMarker + ` ([0-9a-f]{32})$`)

// parseBlock checks that out is a well-formed Wrap block and returns its
// boundary and the content between the marker lines. Well formed: the
// notice, naming the boundary, on the first line; the begin line second;
// the end line last; no content line that is, or starts like, a marker
// line; and the boundary nowhere else.
func parseBlock(out string) (boundary, inner string, err error) {
	lines := strings.Split(out, "\n")
	if len(lines) < 3 {
		return "", "", fmt.Errorf("block has %d lines", len(lines))
	}
	m := beginLineRE.FindStringSubmatch(lines[1])
	if m == nil {
		return "", "", fmt.Errorf("second line %q is not a begin line", lines[1])
	}
	b := m[1]
	if lines[0] != fmt.Sprintf(noticeFormat, b) {
		return "", "", fmt.Errorf("first line %q is not the notice", lines[0])
	}
	if last := lines[len(lines)-1]; last != EndMarker+" "+b {
		return "", "", fmt.Errorf("last line %q is not the end line", last)
	}
	content := lines[2 : len(lines)-1]
	for _, l := range content {
		u := strings.ToUpper(strings.TrimSpace(l))
		if strings.HasPrefix(u, BeginMarker) || strings.HasPrefix(u, EndMarker) {
			return "", "", fmt.Errorf("content line %q imitates a marker", l)
		}
	}
	if n := strings.Count(strings.ToLower(out), b); n != 5 {
		return "", "", fmt.Errorf("boundary occurs %d times, want 5 (notice 3 times, begin, end)", n)
	}
	return b, strings.Join(content, "\n"), nil
}

func TestTextVectors(t *testing.T) {
	var cases []textCase
	load(t, "cases.json", &cases)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			if f := textFailure(New(Options{}), c); f != "" {
				t.Errorf("%s\ninput %q\nnotes: %s", f, c.Input, c.Notes)
			}
		})
	}
}

func TestWrapVectors(t *testing.T) {
	var cases []wrapCase
	load(t, "wrap.json", &cases)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, f := range wrapFailures(New(Options{}), c) {
				t.Error(f)
			}
		})
	}
}

// TestVectorsCatchDisabledSanitizer proves the vectors would notice a
// sanitiser switched off: every wrap case and every text case that expects
// a change must then fail.
func TestVectorsCatchDisabledSanitizer(t *testing.T) {
	off := New(Options{Disabled: true})
	var texts []textCase
	load(t, "cases.json", &texts)
	changing := 0
	for _, c := range texts {
		if c.Input != c.Want {
			changing++
			if textFailure(off, c) == "" {
				t.Errorf("text case %q passes with the sanitiser off", c.Name)
			}
		}
	}
	if changing < len(texts)/2 {
		t.Errorf("only %d of %d text cases expect a change", changing, len(texts))
	}
	var wraps []wrapCase
	load(t, "wrap.json", &wraps)
	for _, c := range wraps {
		if len(wrapFailures(off, c)) == 0 {
			t.Errorf("wrap case %q passes with the sanitiser off", c.Name)
		}
	}
}
