package bus

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Fixed fuzz identities (test-only keys, never use them for anything real).
const (
	fuzzServerKey = "0202020202020202020202020202020202020202020202020202020202020202"
	fuzzWrapKey   = "0303030303030303030303030303030303030303030303030303030303030303"
	fuzzClientKey = "0101010101010101010101010101010101010101010101010101010101010101"
)

// FuzzUnwrap feeds Unwrap two kinds of hostile input per iteration:
//
//   - a wrap with arbitrary fields (kind, pubkey, content, p tag), optionally
//     with its id fixed up so the fuzzer gets past the id check;
//   - a well-formed wrap of an arbitrary plaintext, encrypted for real, so
//     the strict inner parser and the verification behind it are fuzzed too.
//
// Unwrap must never panic, and anything it returns must be a verified
// kind-25910 event addressed to the server.
func FuzzUnwrap(f *testing.F) {
	server := wireKeyFrom(f, fuzzServerKey)
	client := wireKeyFrom(f, fuzzClientKey)
	good := wireSigned(f, client, pingRequest, server.PublicKey())
	wrap, err := wrapWith([]byte(marshal(f, good)), server.PublicKey(), KindGiftWrap, fuzzWrapKey, nostr.Now())
	if err != nil {
		f.Fatal(err)
	}
	seal := fuzzSealer(f, server.PublicKey())
	f.Add(KindGiftWrap, wrap.PubKey, wrap.Content, server.PublicKey(), true, marshal(f, good))
	f.Add(KindEphemeralGiftWrap, "", "", "", false, "{}")
	f.Add(KindGiftWrap, wrap.PubKey, wrap.Content[:200], client.PublicKey(), true, `{"kind":25910}`)
	f.Fuzz(func(t *testing.T, kind int, pubkey, content, p string, fixID bool, plaintext string) {
		ctx := context.Background()
		raw := &nostr.Event{Kind: kind, PubKey: pubkey, Content: content, Tags: nostr.Tags{{"p", p}}}
		if fixID {
			raw.ID = raw.GetID()
		}
		if inner, err := Unwrap(ctx, server, raw); err == nil {
			checkFuzzInner(t, inner, server.PublicKey())
		}
		if len(plaintext) == 0 || len(plaintext) > MaxPlaintext {
			return
		}
		if inner, err := Unwrap(ctx, server, seal(t, plaintext)); err == nil {
			checkFuzzInner(t, inner, server.PublicKey())
		}
	})
}

// fuzzSealer returns a function that wraps plaintext to recipient from the
// fixed wrap key. Unlike wrapWith it reuses one conversation key and leaves
// the wrap unsigned (Unwrap checks only its id), so an iteration costs
// microseconds instead of an ECDH and a signature, and the fuzzer explores
// far more inputs.
func fuzzSealer(f *testing.F, recipient string) func(*testing.T, string) *nostr.Event {
	ck, err := nip44.GenerateConversationKey(recipient, fuzzWrapKey)
	if err != nil {
		f.Fatal(err)
	}
	wrapPub, _ := nostr.GetPublicKey(fuzzWrapKey)
	return func(t *testing.T, plaintext string) *nostr.Event {
		content, err := nip44.Encrypt(plaintext, ck)
		if err != nil {
			t.Fatal(err)
		}
		w := &nostr.Event{Kind: KindGiftWrap, PubKey: wrapPub, CreatedAt: nostr.Now(),
			Tags: nostr.Tags{{"p", recipient}}, Content: content}
		w.ID = w.GetID()
		return w
	}
}

func checkFuzzInner(t *testing.T, inner *nostr.Event, recipient string) {
	t.Helper()
	ok, err := inner.CheckSignature()
	if inner.Kind != KindMessage || !inner.CheckID() || !ok || err != nil || Recipient(inner) != recipient {
		t.Fatalf("Unwrap returned an unverified event: %+v", inner)
	}
}
