package relay_test

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// An event whose sig or pubkey is longer than it may be is refused like any
// bad signature, and the relay goes on: go-nostr's libsecp256k1 build of
// CheckSignature panics on such input, which took the whole relay down.
func TestOverlongHexFieldsAreRefused(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	for name, mutate := range map[string]func(*nostr.Event){
		"long sig":    func(e *nostr.Event) { e.Sig += "00" },
		"long pubkey": func(e *nostr.Event) { e.PubKey += "00" },
	} {
		ev := testutil.Signed(t, r.Member, 1, name)
		mutate(&ev)
		c.SendJSON([]any{"EVENT", ev})
		if ok := c.Expect("OK", "invalid:"); string(ok[2]) != "false" {
			t.Fatalf("%s: accepted: %s", name, ok)
		}
	}
	c.SendJSON([]any{"EVENT", testutil.Signed(t, r.Member, 1, "still here")})
	c.ExpectAccepted()
}
