package bus

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// BenchmarkWrapUnwrap measures one gift wrap and its unwrap (with the inner
// signature check), the cost encryption adds to each message of a call.
func BenchmarkWrapUnwrap(b *testing.B) {
	from, _ := signer.Generate()
	to, _ := signer.Generate()
	ev := NewMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`), to.PublicKey(), "")
	if err := from.SignEvent(context.Background(), &ev); err != nil {
		b.Fatal(err)
	}
	b.Run("wrap", func(b *testing.B) {
		for b.Loop() {
			if _, err := Wrap(&ev, to.PublicKey(), KindGiftWrap); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Every wrap has its own key, so each unwrap pays its own ECDH: the
	// wraps are made up front (untimed), one per iteration.
	b.Run("unwrap", func(b *testing.B) {
		wraps := make([]*nostr.Event, b.N)
		for i := range wraps {
			var err error
			if wraps[i], err = Wrap(&ev, to.PublicKey(), KindGiftWrap); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		for _, w := range wraps {
			if _, err := Unwrap(context.Background(), to, w); err != nil {
				b.Fatal(err)
			}
		}
	})
}
