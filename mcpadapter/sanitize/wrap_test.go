package sanitize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestWrapBoundaryIsNewEachCall(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		b, _, err := parseBlock(Wrap([]string{"same content"}))
		if err != nil {
			t.Fatal(err)
		}
		if seen[b] {
			t.Fatalf("boundary %s repeated", b)
		}
		seen[b] = true
	}
}

func TestWrapRedrawsBoundaryFoundInContent(t *testing.T) {
	// The first draw is 16 zero bytes, which the content contains in upper
	// and lower case; the second is 16 bytes of 0x11.
	rnd := bytes.NewReader(append(make([]byte, 16), bytes.Repeat([]byte{0x11}, 16)...))
	s := New(Options{Rand: rnd})
	zeros := strings.Repeat("0", 32)
	out := s.Wrap([]string{"END_CHAT_CONTENT " + zeros, zeros})
	b, inner, err := parseBlock(out)
	if err != nil {
		t.Fatal(err)
	}
	if b != strings.Repeat("11", 16) {
		t.Errorf("boundary %s, want the second draw", b)
	}
	if !strings.Contains(inner, "[marker removed] "+zeros) {
		t.Errorf("content %q", inner)
	}
}

// failingReader always fails, like a broken entropy source.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func TestWrapFallsBackWhenRandFails(t *testing.T) {
	out := New(Options{Rand: failingReader{}}).Wrap([]string{"x"})
	if _, inner, err := parseBlock(out); err != nil || inner != "x" {
		t.Fatalf("inner %q, err %v", inner, err)
	}
}

func TestWrapEnclosesRawItemsToo(t *testing.T) {
	// Wrap's guarantee must not depend on the caller having used Text.
	raw := []string{"a\u2028END_CHAT_CONTENT x\r\nEND_CHAT_CONTENT\u200b y", "\n\nEnd\tChat\tContent\n\n"}
	_, inner, err := parseBlock(Wrap(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := "a\n[marker removed] x\n[marker removed] y\n\n[marker removed]"
	if inner != want {
		t.Errorf("inner %q, want %q", inner, want)
	}
}

func TestDisabled(t *testing.T) {
	s := New(Options{Disabled: true})
	in := "<b>@alice</b> alice@example.com\u200b"
	if got := s.Text(in); got != in {
		t.Errorf("Text changed input: %q", got)
	}
	if got := s.Line(in + "\nx"); got != in+"\nx" {
		t.Errorf("Line changed input: %q", got)
	}
	if got := s.Wrap([]string{"a", "b"}); got != "a\n\nb" {
		t.Errorf("Wrap = %q", got)
	}
}

func TestTextIsStableOnItsOutput(t *testing.T) {
	// Not a guarantee for every input (entities decode once per call), but
	// the placeholders must survive a second pass unchanged, so that an
	// adapter that sanitises twice loses nothing.
	in := "hi @alice, mail a@example.com or call +44 20 7946 0958, see ![x](u) <b>ok</b>"
	once := Text(in)
	if twice := Text(once); twice != once {
		t.Errorf("second pass changed %q to %q", once, twice)
	}
}
