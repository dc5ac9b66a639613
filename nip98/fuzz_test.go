package nip98

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

var sentinels = []error{
	ErrMissing, ErrMalformed, ErrWrongKind, ErrBadSignature, ErrExpired,
	ErrURLMismatch, ErrMethodMismatch, ErrPayloadMissing, ErrPayloadMismatch,
	ErrReplayed, ErrBodyTooLarge,
}

// FuzzParseAuthorization feeds arbitrary Authorization headers through the
// full verifier. It must never panic, must only fail with this package's
// sentinels and short messages, and may only accept the one genuine event
// the seeds contain: accepting anything else would be a forgery.
func FuzzParseAuthorization(f *testing.F) {
	s := fixedSigner(f)
	raw := signJSON(f, s, httpEvent(testURL, "GET", testNow, nil), nil)
	tok := base64.StdEncoding.EncodeToString(raw)
	f.Add("Nostr " + tok)
	f.Add(basicHeader("git", tok))
	f.Add("Nostr " + base64.RawURLEncoding.EncodeToString(raw))
	f.Add("Nostr " + base64.StdEncoding.EncodeToString([]byte(`{"kind":27235}`)))
	f.Add("Basic Og==")
	f.Add("Nostr")
	f.Add("")
	var genuine nostr.Event
	if err := json.Unmarshal(raw, &genuine); err != nil {
		f.Fatal(err)
	}
	opts := Options{ExpectedURL: testURL, Now: fixedNow, AllowBasic: true}

	f.Fuzz(func(t *testing.T, header string) {
		r := newRequest("GET", testURL, "", nil)
		r.Header["Authorization"] = []string{header}
		res, err := Verify(r, opts)
		if err == nil {
			if res.Event.ID != genuine.ID || res.PubKey != s.PublicKey() {
				t.Fatalf("accepted a token that is not the genuine one: %q", header)
			}
			return
		}
		if len(err.Error()) > 100 {
			t.Fatalf("error message too long (%d bytes)", len(err.Error()))
		}
		for _, e := range sentinels {
			if errors.Is(err, e) {
				return
			}
		}
		t.Fatalf("error %v wraps no sentinel", err)
	})
}
