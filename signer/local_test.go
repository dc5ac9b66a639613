package signer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
)

func TestSignHashVerifies(t *testing.T) {
	l, other := mustGenerate(t), mustGenerate(t)
	hash := sha256.Sum256([]byte("commit tree 4b825dc6"))
	sig, err := l.SignHash(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := schnorr.ParseSignature(sig[:])
	if err != nil {
		t.Fatal(err)
	}
	if !parsed.Verify(hash[:], pubKey(t, l)) {
		t.Fatal("signature does not verify against PublicKey")
	}
	tampered := hash
	tampered[0] ^= 1
	if parsed.Verify(tampered[:], pubKey(t, l)) || parsed.Verify(hash[:], pubKey(t, other)) {
		t.Fatal("signature verifies for the wrong hash or key")
	}
}

func pubKey(t *testing.T, l *Local) *btcec.PublicKey {
	t.Helper()
	raw, err := hex.DecodeString(l.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	pk, err := schnorr.ParsePubKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

// TestSignEvent checks events signed by Local against go-nostr's id and a
// pure-Go BIP-340 verifier, whichever signing path the build uses.
func TestSignEvent(t *testing.T) {
	for i := range 50 {
		l := mustGenerate(t)
		ev := &nostr.Event{Kind: 1, Content: fmt.Sprintf("hi %d", i), CreatedAt: 1}
		if i%2 == 1 {
			ev.Tags = nostr.Tags{{"p", l.PublicKey()}}
		}
		if err := l.SignEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		if ev.PubKey != l.PublicKey() || ev.ID != ev.GetID() || ev.Tags == nil {
			t.Fatalf("pubkey %s id %s tags %v; want %s, %s, non-nil", ev.PubKey, ev.ID, ev.Tags, l.PublicKey(), ev.GetID())
		}
		if ok, err := ev.CheckSignature(); !ok || err != nil {
			t.Fatalf("go-nostr: event signature invalid: %v", err)
		}
		if !verifyPureGo(t, ev) {
			t.Fatal("btcec: event signature invalid")
		}
	}
}

// verifyPureGo checks ev's signature with btcec, independent of the build.
func verifyPureGo(t *testing.T, ev *nostr.Event) bool {
	t.Helper()
	pk, _ := hex.DecodeString(ev.PubKey)
	sigBytes, _ := hex.DecodeString(ev.Sig)
	id, _ := hex.DecodeString(ev.ID)
	pub, err := schnorr.ParsePubKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := schnorr.ParseSignature(sigBytes)
	if err != nil {
		t.Fatal(err)
	}
	return sig.Verify(id, pub)
}

func TestEncryptDecryptRoundTrip(t *testing.T) {
	ctx := context.Background()
	a, b, c := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	const msg = `{"tool":"grep","args":["-n","TODO"]}`
	payload, err := a.Encrypt(ctx, msg, b.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Decrypt(ctx, payload, a.PublicKey()); err != nil || got != msg {
		t.Fatalf("b.Decrypt = %q, %v", got, err)
	}
	// NIP-44 conversation keys are symmetric: the sender can reopen it too.
	if got, err := a.Decrypt(ctx, payload, b.PublicKey()); err != nil || got != msg {
		t.Fatalf("a.Decrypt = %q, %v", got, err)
	}
	if _, err := c.Decrypt(ctx, payload, a.PublicKey()); err == nil {
		t.Fatal("a third key decrypted the payload")
	}
}

func TestConversationKeyCache(t *testing.T) {
	a, b := mustGenerate(t), mustGenerate(t)
	first, err := a.conversationKey(b.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := a.conversationKey(b.PublicKey())
	mirror, _ := b.conversationKey(a.PublicKey())
	if again != first || mirror != first {
		t.Fatal("conversation keys differ")
	}
	if len(a.conv.keys) != 1 {
		t.Fatalf("cache holds %d keys, want 1", len(a.conv.keys))
	}
	// A planted entry is returned as is, proving lookups hit the cache.
	planted := [32]byte{1}
	a.conv.keys[b.PublicKey()] = planted
	if got, _ := a.conversationKey(b.PublicKey()); got != planted {
		t.Fatal("conversationKey bypassed the cache")
	}
}

func TestEncryptBadPeerHidesSecret(t *testing.T) {
	l := mustGenerate(t)
	_, err := l.Encrypt(context.Background(), "x", "not-a-key")
	if !errors.Is(err, ErrInvalidPubKey) {
		t.Fatalf("err = %v, want ErrInvalidPubKey", err)
	}
	assertNoSecret(t, "Encrypt error", err.Error(), l)
}

// A copied Local shares the cache and still works: it holds no lock.
func TestLocalCopy(t *testing.T) {
	l := mustGenerate(t)
	c := *l
	if _, err := c.SignHash(context.Background(), [32]byte{}); err != nil {
		t.Fatal(err)
	}
}

// TestLocalHasEventKey: every Local signs through its expanded key (the
// path TestSignEvent checks), never a fallback.
func TestLocalHasEventKey(t *testing.T) {
	if mustGenerate(t).fast == nil {
		t.Fatal("Local has no expanded signing key")
	}
}
