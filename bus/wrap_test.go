package bus

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// wireKey is a fresh identity; secret is its hex key, for leak checks.
type wireKey struct {
	*signer.Local
	secret string
}

func newWireKey(t testing.TB) wireKey {
	t.Helper()
	return wireKeyFrom(t, nostr.GeneratePrivateKey())
}

func wireKeyFrom(t testing.TB, secret string) wireKey {
	t.Helper()
	l, err := signer.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wireKey{l, secret}
}

// cipherOnly hides PublicKey, so Unwrap cannot pre-check the recipient and
// must rely on decryption and the inner p tag.
type cipherOnly struct{ signer.Cipher }

// wireSigned returns a kind-25910 message from k to recipient, signed.
func wireSigned(t testing.TB, k wireKey, content, recipient string) *nostr.Event {
	t.Helper()
	ev := NewMessage([]byte(content), recipient, "")
	if err := k.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

// wrapRaw wraps arbitrary plaintext, bypassing Wrap's checks, the way a
// malicious or buggy peer could.
func wrapRaw(t testing.TB, plaintext, recipient string) *nostr.Event {
	t.Helper()
	w, err := wrapWith([]byte(plaintext), recipient, KindGiftWrap, nostr.GeneratePrivateKey(), nostr.Now())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func marshal(t testing.TB, ev *nostr.Event) string {
	t.Helper()
	b, err := ev.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const pingRequest = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func TestWrapUnwrapRoundTrip(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	for _, kind := range []int{KindGiftWrap, KindEphemeralGiftWrap} {
		wrap, err := Wrap(inner, server.PublicKey(), kind)
		if err != nil {
			t.Fatalf("kind %d: %v", kind, err)
		}
		if wrap.Kind != kind || !wrap.CheckID() {
			t.Fatalf("kind %d: wrap kind %d, id ok %v", kind, wrap.Kind, wrap.CheckID())
		}
		if ok, err := wrap.CheckSignature(); !ok || err != nil {
			t.Fatalf("kind %d: wrap signature invalid: %v", kind, err)
		}
		if wrap.PubKey == client.PublicKey() || strings.Contains(wrap.Content, "ping") {
			t.Fatal("wrap reveals the sender or the content")
		}
		got, err := Unwrap(context.Background(), server, wrap)
		if err != nil {
			t.Fatalf("kind %d: Unwrap: %v", kind, err)
		}
		if !reflect.DeepEqual(got, inner) {
			t.Fatalf("kind %d: Unwrap = %+v, want %+v", kind, got, inner)
		}
	}
}

func TestWrapShape(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	inner.CreatedAt -= 3600 // the wrap's time must be its own, not the inner's
	if err := client.SignEvent(context.Background(), inner); err != nil {
		t.Fatal(err)
	}
	a, errA := Wrap(inner, server.PublicKey(), KindGiftWrap)
	b, errB := Wrap(inner, server.PublicKey(), KindGiftWrap)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a.PubKey == b.PubKey || a.Content == b.Content || a.ID == b.ID {
		t.Fatal("two wraps of one event share a key, content or id: the wrap key is not fresh")
	}
	for _, w := range []*nostr.Event{a, b} {
		if !reflect.DeepEqual(w.Tags, nostr.Tags{{"p", server.PublicKey()}}) {
			t.Fatalf("wrap tags = %v, want exactly [[p recipient]]", w.Tags)
		}
		if d := time.Since(w.CreatedAt.Time()); d < -5*time.Second || d > 5*time.Second {
			t.Fatalf("wrap created_at is %v from now; receivers subscribe with since=now", d)
		}
	}
}

func TestWrapSizeLimit(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	base := len(marshal(t, wireSigned(t, client, "", server.PublicKey())))
	// Content of n plain ASCII letters serialises to exactly base+n bytes.
	atLimit := wireSigned(t, client, strings.Repeat("a", MaxPlaintext-base), server.PublicKey())
	over := wireSigned(t, client, strings.Repeat("a", MaxPlaintext-base+1), server.PublicKey())
	if n := len(marshal(t, atLimit)); n != MaxPlaintext {
		t.Fatalf("test setup: serialised size %d, want %d", n, MaxPlaintext)
	}
	wrap, err := Wrap(atLimit, server.PublicKey(), KindEphemeralGiftWrap)
	if err != nil {
		t.Fatalf("Wrap at exactly %d bytes: %v", MaxPlaintext, err)
	}
	if got, err := Unwrap(context.Background(), server, wrap); err != nil || got.ID != atLimit.ID {
		t.Fatalf("Unwrap at the limit: %v", err)
	}
	_, err = Wrap(over, server.PublicKey(), KindEphemeralGiftWrap)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Wrap at %d bytes: err = %v, want ErrTooLarge", MaxPlaintext+1, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "65536") || !strings.Contains(msg, "65535") {
		t.Errorf("error %q should state the size and the limit", msg)
	}
}

func TestWrapRefuses(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	good := wireSigned(t, client, pingRequest, server.PublicKey())
	unsigned := NewMessage([]byte(pingRequest), server.PublicKey(), "")
	modified := *good
	modified.Content = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	note := nostr.Event{Kind: 1, Tags: nostr.Tags{{"p", server.PublicKey()}}, Content: "x"}
	if err := client.SignEvent(context.Background(), &note); err != nil {
		t.Fatal(err)
	}
	offCurve := strings.Repeat("0", 63) + "5" // x = 5 has no point on secp256k1
	toOffCurve := wireSigned(t, client, pingRequest, offCurve)
	for name, tc := range map[string]struct {
		inner     *nostr.Event
		recipient string
		kind      int
		want      error
	}{
		"nil":            {nil, server.PublicKey(), KindGiftWrap, ErrInnerInvalid},
		"unsigned":       {&unsigned, server.PublicKey(), KindGiftWrap, ErrInnerInvalid},
		"modified":       {&modified, server.PublicKey(), KindGiftWrap, ErrInnerInvalid},
		"kind 1 inner":   {&note, server.PublicKey(), KindGiftWrap, ErrInnerInvalid},
		"kind 13 wrap":   {good, server.PublicKey(), 13, ErrNotWrap},
		"kind 25910":     {good, server.PublicKey(), KindMessage, ErrNotWrap},
		"other p":        {good, client.PublicKey(), KindGiftWrap, ErrRecipientMismatch},
		"bad recipient":  {good, "zz", KindGiftWrap, signer.ErrInvalidPubKey},
		"upper-case hex": {good, strings.ToUpper(server.PublicKey()), KindGiftWrap, signer.ErrInvalidPubKey},
		"off the curve":  {toOffCurve, offCurve, KindGiftWrap, signer.ErrInvalidPubKey},
	} {
		if w, err := Wrap(tc.inner, tc.recipient, tc.kind); !errors.Is(err, tc.want) || w != nil {
			t.Errorf("%s: Wrap = %v, %v; want %v", name, w, err, tc.want)
		}
	}
}

func TestUnwrapNotWrap(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	wrap, err := Wrap(inner, server.PublicKey(), KindGiftWrap)
	if err != nil {
		t.Fatal(err)
	}
	relabelled := *wrap
	relabelled.Kind = KindMessage
	noP := *wrap
	noP.Tags = nostr.Tags{}
	noP.ID = noP.GetID()
	badID := *wrap
	badID.Content = badID.Content[:len(badID.Content)-4] + "AAA="
	for name, ev := range map[string]*nostr.Event{
		"nil": nil, "inner itself": inner, "kind changed": &relabelled, "no p tag": &noP, "stale id": &badID,
	} {
		if got, err := Unwrap(context.Background(), server, ev); !errors.Is(err, ErrNotWrap) || got != nil {
			t.Errorf("%s: Unwrap = %v, %v; want ErrNotWrap", name, got, err)
		}
	}
}

func TestUnwrapWrongKey(t *testing.T) {
	client, server, other := newWireKey(t), newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	wrap, err := Wrap(inner, server.PublicKey(), KindGiftWrap)
	if err != nil {
		t.Fatal(err)
	}
	// A key that does not know who it is can only find out by decrypting.
	_, err = Unwrap(context.Background(), cipherOnly{other}, wrap)
	if !errors.Is(err, ErrDecrypt) {
		t.Fatalf("wrong key: err = %v, want ErrDecrypt", err)
	}
	// A wrap whose p tag was rewritten to other still only opens for server.
	readdressed := *wrap
	readdressed.Tags = nostr.Tags{{"p", other.PublicKey()}}
	readdressed.ID = readdressed.GetID()
	if _, err := Unwrap(context.Background(), other, &readdressed); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("readdressed wrap: err = %v, want ErrDecrypt", err)
	}
	// A full Keyer refuses a wrap addressed to someone else before any ECDH.
	if _, err := Unwrap(context.Background(), other, wrap); !errors.Is(err, ErrRecipientMismatch) {
		t.Fatalf("wrap for server opened by other: err = %v, want ErrRecipientMismatch", err)
	}
	corrupt := *wrap
	flip := map[byte]string{'A': "B"}[corrupt.Content[60]]
	if flip == "" {
		flip = "A"
	}
	corrupt.Content = corrupt.Content[:60] + flip + corrupt.Content[61:]
	corrupt.ID = corrupt.GetID()
	if _, err := Unwrap(context.Background(), server, &corrupt); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("corrupted payload: err = %v, want ErrDecrypt", err)
	}
	assertNoKeys(t, err, server, other)
}

// TestUnwrapRecipientMismatch is the re-wrapping attack: server received a
// request signed by client and forwards it, freshly wrapped, to victim.
func TestUnwrapRecipientMismatch(t *testing.T) {
	client, server, victim := newWireKey(t), newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	forwarded := wrapRaw(t, marshal(t, inner), victim.PublicKey())
	for name, c := range map[string]signer.Cipher{"keyer": victim, "cipher only": cipherOnly{victim}} {
		got, err := Unwrap(context.Background(), c, forwarded)
		if !errors.Is(err, ErrRecipientMismatch) || got != nil {
			t.Fatalf("%s: Unwrap = %v, %v; want ErrRecipientMismatch", name, got, err)
		}
	}
	noP := nostr.Event{Kind: KindMessage, Content: pingRequest, CreatedAt: nostr.Now(), Tags: nostr.Tags{}}
	if err := client.SignEvent(context.Background(), &noP); err != nil {
		t.Fatal(err)
	}
	if _, err := Unwrap(context.Background(), victim, wrapRaw(t, marshal(t, &noP), victim.PublicKey())); !errors.Is(err, ErrRecipientMismatch) {
		t.Fatalf("inner without p tag: err = %v, want ErrRecipientMismatch", err)
	}
}

func TestUnwrapInvalidInner(t *testing.T) {
	client, server := newWireKey(t), newWireKey(t)
	inner := wireSigned(t, client, pingRequest, server.PublicKey())
	tampered := *inner
	tampered.Content = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
	reIDed := tampered
	reIDed.ID = reIDed.GetID() // id fixed up, signature now wrong
	forged := *inner
	forged.Sig = strings.Repeat("0", 128)
	// Body and signature intact, id field swapped: receivers dedupe by the
	// id and responses cite it, so it must be the event's real id.
	otherID := *inner
	otherID.ID = strings.Repeat("ab", 32)
	kind1 := nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"p", server.PublicKey()}}, Content: "x"}
	if err := client.SignEvent(context.Background(), &kind1); err != nil {
		t.Fatal(err)
	}
	// null and [] hash alike, so only the parser can refuse a null tag.
	emptyTag := nostr.Event{Kind: KindMessage, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"p", server.PublicKey()}, {}}, Content: "x"}
	if err := client.SignEvent(context.Background(), &emptyTag); err != nil {
		t.Fatal(err)
	}
	good := marshal(t, inner)
	for name, plaintext := range map[string]string{
		"tampered content": marshal(t, &tampered),
		"re-ided":          marshal(t, &reIDed),
		"forged sig":       marshal(t, &forged),
		"wrong id field":   marshal(t, &otherID),
		"wrong kind":       marshal(t, &kind1),
		"not json":         "hello",
		"json array":       `[` + good + `]`,
		"trailing data":    good + `{}`,
		"missing sig":      strings.Replace(good, `,"sig":"`+inner.Sig+`"`, "", 1),
		"null content":     strings.Replace(good, `"content":`+quote(inner.Content), `"content":null`, 1),
		"unknown field":    strings.Replace(good, `{"kind"`, `{"extra":1,"kind"`, 1),
		"string kind":      strings.Replace(good, `"kind":25910`, `"kind":"25910"`, 1),
		"null tag":         strings.Replace(marshal(t, &emptyTag), `,[]]`, `,null]`, 1),
	} {
		if plaintext == good {
			t.Fatalf("%s: test case did not change the event", name)
		}
		got, err := Unwrap(context.Background(), server, wrapRaw(t, plaintext, server.PublicKey()))
		if !errors.Is(err, ErrInnerInvalid) || got != nil {
			t.Errorf("%s: Unwrap = %v, %v; want ErrInnerInvalid", name, got, err)
		}
		assertNoKeys(t, err, client, server)
	}
}

func quote(s string) string {
	b, _ := nostr.Event{Content: s}.MarshalJSON()
	_, q, _ := strings.Cut(string(b), `"content":`)
	return strings.TrimSuffix(q, "}")
}

func TestWrapErrorsHideKeys(t *testing.T) {
	wrapKey := nostr.GeneratePrivateKey()
	_, err := wrapWith([]byte("x"), strings.Repeat("f", 64), KindGiftWrap, wrapKey, nostr.Now())
	if err == nil || strings.Contains(err.Error(), wrapKey) {
		t.Fatalf("err = %v; want an error without the wrap key", err)
	}
	_, err = wrapWith([]byte("x"), newWireKey(t).PublicKey(), KindGiftWrap, strings.Repeat("f", 64), nostr.Now())
	if err == nil || strings.Contains(err.Error(), strings.Repeat("f", 64)) {
		t.Fatalf("err = %v; want an error without the (invalid) wrap key", err)
	}
}

func assertNoKeys(t *testing.T, err error, keys ...wireKey) {
	t.Helper()
	if err == nil {
		return
	}
	for _, k := range keys {
		if strings.Contains(strings.ToLower(err.Error()), k.secret) {
			t.Fatalf("error %q contains a secret key", err)
		}
	}
}
