package signer

import (
	"errors"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr/nip19"
)

func TestParseSecret(t *testing.T) {
	zeroNsec, _ := nip19.EncodePrivateKey(strings.Repeat("0", 64))
	npub, _ := nip19.EncodePublicKey(vecHex)
	const order = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"nsec", vecNsec, true},
		{"upper nsec", strings.ToUpper(vecNsec), true},
		{"lower hex", vecHex, true},
		{"upper hex", strings.ToUpper(vecHex), true},
		{"whitespace trimmed", " \t\n" + vecHex + "\r\n ", true},
		{"nsec with newline", vecNsec + "\n", true},
		{"63 chars", vecHex[:63], false},
		{"65 chars", vecHex + "a", false},
		{"non-hex", "g" + vecHex[1:], false},
		{"inner space", vecHex[:32] + " " + vecHex[33:], false},
		{"0x prefix", "0x" + vecHex[2:], false},
		{"zero key", strings.Repeat("0", 64), false},
		{"zero key as nsec", zeroNsec, false},
		{"curve order", order, false},
		{"above curve order", strings.Repeat("f", 64), false},
		{"npub given as secret", npub, false},
		{"nsec bad checksum", vecNsec[:len(vecNsec)-1] + "q", false},
		{"nsec truncated", vecNsec[:40], false},
		{"empty", "", false},
		{"blank", " \n ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseSecret(tt.in)
			if tt.ok {
				if err != nil {
					t.Fatalf("ParseSecret: %v", err)
				}
				if l.secretHex() != vecHex || l.NSec() != vecNsec {
					t.Fatalf("parsed a different key")
				}
				return
			}
			if !errors.Is(err, ErrInvalidSecret) || l != nil {
				t.Fatalf("got (%v, %v), want ErrInvalidSecret", l, err)
			}
			in := strings.ToLower(strings.TrimSpace(tt.in))
			if in != "" && strings.Contains(strings.ToLower(err.Error()), in) {
				t.Errorf("error %q quotes the input", err)
			}
		})
	}
}

func TestParseSecretKnownPublicKey(t *testing.T) {
	// Secret 1's public key is the generator's x coordinate.
	l, err := ParseSecret(strings.Repeat("0", 63) + "1")
	if err != nil {
		t.Fatal(err)
	}
	const gx = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	if l.PublicKey() != gx {
		t.Fatalf("PublicKey = %s, want %s", l.PublicKey(), gx)
	}
}

func TestParsePubKey(t *testing.T) {
	const (
		vecNpub = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"
		vecPub  = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"
		// x = 5 has no y on secp256k1.
		offCurve = "0000000000000000000000000000000000000000000000000000000000000005"
	)
	offCurveNpub, _ := nip19.EncodePublicKey(offCurve)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"npub", vecNpub, true},
		{"upper npub", strings.ToUpper(vecNpub), true},
		{"hex", vecPub, true},
		{"upper hex", strings.ToUpper(vecPub), true},
		{"whitespace trimmed", "\n" + vecPub + " ", true},
		{"invalid point", offCurve, false},
		{"invalid point npub", offCurveNpub, false},
		{"x above field prime", strings.Repeat("f", 64), false},
		{"bad checksum", vecNpub[:len(vecNpub)-1] + "q", false},
		{"nsec given as pubkey", vecNsec, false},
		{"63 chars", vecPub[:63], false},
		{"non-hex", "z" + vecPub[1:], false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePubKey(tt.in)
			if tt.ok {
				if err != nil || got != vecPub {
					t.Fatalf("got (%q, %v), want %q", got, err, vecPub)
				}
				return
			}
			if !errors.Is(err, ErrInvalidPubKey) || got != "" {
				t.Fatalf("got (%q, %v), want ErrInvalidPubKey", got, err)
			}
		})
	}
}
