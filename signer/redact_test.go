package signer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestFormatRedacts(t *testing.T) {
	l := mustGenerate(t)
	type holder struct {
		Exported   *Local
		ByValue    Local
		unexported Local
		hidden     *Local
	}
	h := holder{Exported: l, ByValue: *l, unexported: *l, hidden: l}
	values := []any{l, *l, h, &h, []*Local{l}, map[string]Local{"k": *l}}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"}
	for _, v := range values {
		for _, verb := range verbs {
			assertNoSecret(t, fmt.Sprintf("%s of %T", verb, v), fmt.Sprintf(verb, v), l)
		}
		assertNoSecret(t, fmt.Sprintf("Sprint of %T", v), fmt.Sprint(v), l)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		if got, want := fmt.Sprintf(verb, l), "signer.Local{pubkey:"+l.PublicKey()+"}"; got != want {
			t.Errorf("%s = %q, want %q", verb, got, want)
		}
	}
}

func TestFormatNil(t *testing.T) {
	var l *Local
	if got := fmt.Sprintf("%v", l); got != "<nil>" {
		t.Errorf("%%v of nil = %q", got)
	}
	if got := l.String(); !strings.Contains(got, "nil") {
		t.Errorf("String of nil = %q", got)
	}
}

func TestSlogRedacts(t *testing.T) {
	l := mustGenerate(t)
	var buf bytes.Buffer
	handlers := []slog.Handler{
		slog.NewJSONHandler(&buf, nil),
		slog.NewTextHandler(&buf, nil),
	}
	for _, h := range handlers {
		log := slog.New(h)
		log.Info("loaded", "key", l, "value", *l, "nested", struct{ K *Local }{l})
		log.Info("group", slog.Group("g", slog.Any("key", l)))
		log.With("key", l).Info("with")
	}
	out := buf.String()
	assertNoSecret(t, "slog output", out, l)
	if !strings.Contains(out, `"key":"`+l.PublicKey()+`"`) {
		t.Errorf("JSON log lacks the public key: %s", out)
	}
	if v := l.LogValue(); v.String() != l.PublicKey() {
		t.Errorf("LogValue = %v, want the public key", v)
	}
}

func TestMarshalRedactsToNPub(t *testing.T) {
	l := mustGenerate(t)
	data, err := json.Marshal(struct {
		P *Local
		V Local
	}{l, *l})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"P":%q,"V":%q}`, l.NPub(), l.NPub())
	if string(data) != want {
		t.Errorf("json = %s, want %s", data, want)
	}
	text, err := l.MarshalText()
	if err != nil || string(text) != l.NPub() {
		t.Errorf("MarshalText = %q, %v", text, err)
	}
	// The point of the npub: read back as a secret, it fails loudly.
	if _, err := ParseSecret(string(text)); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("marshalled Local parsed as a secret: %v", err)
	}
	var back Local
	if err := json.Unmarshal(fmt.Appendf(nil, "%q", l.NPub()), &back); err == nil {
		t.Error("a Local was unmarshalled from JSON")
	}
	if _, err := json.Marshal(Local{}); err == nil {
		t.Error("zero Local marshalled")
	}
}
