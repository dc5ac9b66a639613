package nip98

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// An event hashed and signed over an upper-case pubkey is internally
// consistent, but would let one key authenticate under two spellings.
func TestVerifyRejectsUpperCasePubKey(t *testing.T) {
	s := newSigner(t)
	ev := httpEvent(testURL, "GET", testNow, nil)
	ev.PubKey = strings.ToUpper(s.PublicKey())
	hash := sha256.Sum256(ev.Serialize())
	sig, err := s.SignHash(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	ev.ID, ev.Sig = hex.EncodeToString(hash[:]), hex.EncodeToString(sig[:])
	if ok, _ := ev.CheckSignature(); !ok {
		t.Fatal("fixture: signature over upper-case pubkey does not verify")
	}
	raw, _ := json.Marshal(ev)
	h := "Nostr " + base64.StdEncoding.EncodeToString(raw)
	_, err = Verify(newRequest("GET", testURL, h, nil), Options{ExpectedURL: testURL, Now: fixedNow})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
}

func TestVerifyRejectsSeveralHeaders(t *testing.T) {
	s := newSigner(t)
	h := nostrHeader(t, s, httpEvent(testURL, "GET", testNow, nil), nil)
	r := newRequest("GET", testURL, h, nil)
	r.Header.Add("Authorization", "Nostr other")
	_, err := Verify(r, Options{ExpectedURL: testURL, Now: fixedNow})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
}
