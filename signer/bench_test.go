package signer

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// BenchmarkSignEvent compares Local's signing with go-nostr's Event.Sign,
// which expands the hex secret on every call. Run with and without
// -tags libsecp256k1.
func BenchmarkSignEvent(b *testing.B) {
	l := mustGenerate(b)
	ev := nostr.Event{Kind: 1, Content: "bench", Tags: nostr.Tags{}}
	b.Run("local", func(b *testing.B) {
		for b.Loop() {
			if err := l.SignEvent(context.Background(), &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-nostr", func(b *testing.B) {
		for b.Loop() {
			if err := ev.Sign(l.secretHex()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkConversationKey compares the NIP-44 key derivation with
// go-nostr's, which also derives the secret's own public key.
func BenchmarkConversationKey(b *testing.B) {
	sk := nostr.GeneratePrivateKey()
	peer, _ := nostr.GetPublicKey(nostr.GeneratePrivateKey())
	b.Run("local", func(b *testing.B) {
		for b.Loop() {
			if _, err := ConversationKey(sk, peer); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-nostr", func(b *testing.B) {
		for b.Loop() {
			if _, err := nip44.GenerateConversationKey(peer, sk); err != nil {
				b.Fatal(err)
			}
		}
	})
}
