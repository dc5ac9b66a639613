package signer

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr/nip44"
)

// fillConvCache plants n synthetic entries, standing in for peers met earlier.
func fillConvCache(l *Local, n int) {
	for i := range n {
		l.conv.put(fmt.Sprintf("planted-%d", i), [32]byte{byte(i)})
	}
}

func TestConvCacheBounded(t *testing.T) {
	l := mustGenerate(t)
	fillConvCache(l, 2*maxConvKeys)
	if n := len(l.conv.keys); n != maxConvKeys {
		t.Fatalf("cache holds %d keys after %d puts, want %d", n, 2*maxConvKeys, maxConvKeys)
	}
	last := fmt.Sprintf("planted-%d", 2*maxConvKeys-1)
	if _, ok := l.conv.keys[last]; !ok {
		t.Fatal("the newest entry was evicted instead of an old one")
	}
	// Re-storing a cached peer must not evict anyone.
	l.conv.put(last, [32]byte{9})
	if n := len(l.conv.keys); n != maxConvKeys {
		t.Fatalf("re-put changed the size to %d", n)
	}
}

// TestConvCacheBoundedByUnwrapPattern drives the real Decrypt path the way
// the tool bus does: every payload comes from a fresh random key.
func TestConvCacheBoundedByUnwrapPattern(t *testing.T) {
	ctx := context.Background()
	me := mustGenerate(t)
	fillConvCache(me, maxConvKeys)
	for range 20 {
		eph := mustGenerate(t)
		ck, err := nip44.GenerateConversationKey(me.PublicKey(), eph.secretHex())
		if err != nil {
			t.Fatal(err)
		}
		payload, err := nip44.Encrypt("hello", ck)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := me.Decrypt(ctx, payload, eph.PublicKey()); err != nil || got != "hello" {
			t.Fatalf("Decrypt = %q, %v", got, err)
		}
		if n := len(me.conv.keys); n > maxConvKeys {
			t.Fatalf("cache grew to %d keys, bound is %d", n, maxConvKeys)
		}
		if _, ok := me.conv.keys[eph.PublicKey()]; !ok {
			t.Fatal("a fresh peer's key was not cached")
		}
	}
}

func TestConvCacheConcurrent(t *testing.T) {
	l := mustGenerate(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range maxConvKeys {
				l.conv.put(fmt.Sprintf("g%d-%d", g, i), [32]byte{})
			}
		})
	}
	wg.Wait()
	if n := len(l.conv.keys); n != maxConvKeys {
		t.Fatalf("cache holds %d keys, want %d", n, maxConvKeys)
	}
}
