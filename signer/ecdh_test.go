package signer

import (
	"errors"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// TestConversationKeyMatchesNIP44 checks the shortcut against go-nostr's
// reference derivation on random key pairs, both directions.
func TestConversationKeyMatchesNIP44(t *testing.T) {
	for range 200 {
		a, b := nostr.GeneratePrivateKey(), nostr.GeneratePrivateKey()
		pa, _ := nostr.GetPublicKey(a)
		pb, _ := nostr.GetPublicKey(b)
		want, err := nip44.GenerateConversationKey(pb, a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ConversationKey(a, pb)
		if err != nil || got != want {
			t.Fatalf("ConversationKey(a, B) = %x, %v; nip44 says %x", got, err, want)
		}
		back, err := ConversationKey(b, pa)
		if err != nil || back != want {
			t.Fatalf("ConversationKey(b, A) = %x, %v; want the same key %x", back, err, want)
		}
	}
}

func TestConversationKeyRefusesBadKeys(t *testing.T) {
	sk := nostr.GeneratePrivateKey()
	peer, _ := nostr.GetPublicKey(nostr.GeneratePrivateKey())
	notOnCurve := strings.Repeat("0", 63) + "5" // x = 5 has no point on secp256k1
	order := "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
	for _, c := range []struct {
		name, sk, peer string
		want           error
	}{
		{"zero secret", strings.Repeat("0", 64), peer, ErrInvalidSecret},
		{"secret = group order", order, peer, ErrInvalidSecret},
		{"short secret", sk[:62], peer, ErrInvalidSecret},
		{"non-hex secret", "zz" + sk[2:], peer, ErrInvalidSecret},
		{"short peer", sk, peer[:62], ErrInvalidPubKey},
		{"non-hex peer", sk, "zz" + peer[2:], ErrInvalidPubKey},
		{"peer not on the curve", sk, notOnCurve, ErrInvalidPubKey},
	} {
		_, err := ConversationKey(c.sk, c.peer)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), sk) {
			t.Errorf("%s: error quotes the secret key", c.name)
		}
	}
}

func TestIsLowerHex(t *testing.T) {
	good := strings.Repeat("0a", 32)
	for s, want := range map[string]bool{
		good:                    true,
		strings.ToUpper(good):   false,
		good[:62]:               false,
		good + "00":             false,
		"zz" + good[2:]:         false,
		strings.Repeat("g", 64): false,
		strings.Repeat("f", 64): true,
	} {
		if got := IsLowerHex(s, 64); got != want {
			t.Errorf("IsLowerHex(%q, 64) = %v, want %v", s, got, want)
		}
	}
}

// TestVerifyEventRefusesMalformedHex: go-nostr's libsecp256k1 build
// panics on an over-long sig or pubkey; VerifyEvent says false instead.
func TestVerifyEventRefusesMalformedHex(t *testing.T) {
	l := mustGenerate(t)
	good := nostr.Event{Kind: 1, Content: "x", CreatedAt: 1}
	if err := l.SignEvent(t.Context(), &good); err != nil {
		t.Fatal(err)
	}
	if !VerifyEvent(&good) {
		t.Fatal("a valid event was refused")
	}
	for name, mutate := range map[string]func(*nostr.Event){
		"long sig":       func(e *nostr.Event) { e.Sig += "00" },
		"short sig":      func(e *nostr.Event) { e.Sig = e.Sig[:126] },
		"upper-case sig": func(e *nostr.Event) { e.Sig = strings.ToUpper(e.Sig) },
		"non-hex sig":    func(e *nostr.Event) { e.Sig = "zz" + e.Sig[2:] },
		"long pubkey":    func(e *nostr.Event) { e.PubKey += "00" },
		"long id":        func(e *nostr.Event) { e.ID += "00" },
		"empty":          func(e *nostr.Event) { e.ID, e.PubKey, e.Sig = "", "", "" },
		"other sig":      func(e *nostr.Event) { e.Sig = strings.Repeat("1", 128) },
	} {
		ev := good
		mutate(&ev)
		if VerifyEvent(&ev) {
			t.Errorf("%s: accepted", name)
		}
	}
}
