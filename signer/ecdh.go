package signer

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/nbd-wtf/go-nostr"
)

// ConversationKey returns the NIP-44 v2 conversation key between the secret
// key secretHex and the peer's hex x-only public key peer.
//
// It is go-nostr's nip44.GenerateConversationKey without the work that call
// throws away: that one derives the secret key's own public key (a full
// scalar multiplication) before the ECDH. Every gift wrap is made with a
// fresh key and opened with the recipient's against a fresh peer, so the
// saving is on every encrypted tool call. Errors never quote either key.
func ConversationKey(secretHex, peer string) ([32]byte, error) {
	var sk [32]byte
	if len(secretHex) != 64 {
		return [32]byte{}, ErrInvalidSecret
	}
	if _, err := hex.Decode(sk[:], []byte(secretHex)); err != nil {
		return [32]byte{}, ErrInvalidSecret
	}
	var k btcec.ModNScalar
	if overflow := k.SetBytes(&sk); overflow != 0 || k.IsZero() {
		return [32]byte{}, ErrInvalidSecret
	}
	defer k.Zero()
	return conversationKey(&k, peer)
}

// conversationKey is the ECDH of k and peer's point (even y, BIP-340),
// through HKDF-extract with the salt "nip44-v2".
func conversationKey(k *btcec.ModNScalar, peer string) ([32]byte, error) {
	var ck [32]byte
	var compressed [33]byte
	compressed[0] = 0x02
	if len(peer) != 64 {
		return ck, ErrInvalidPubKey
	}
	if _, err := hex.Decode(compressed[1:], []byte(peer)); err != nil {
		return ck, ErrInvalidPubKey
	}
	x, err := sharedX(k, &compressed)
	if err != nil {
		return ck, err
	}
	prk, err := hkdf.Extract(sha256.New, x[:], []byte("nip44-v2"))
	if err != nil {
		return ck, fmt.Errorf("nip44 conversation key: %w", err)
	}
	copy(ck[:], prk)
	return ck, nil
}

// IsLowerHex reports whether s is exactly n lowercase hex characters, the
// one spelling NIP-01 allows for ids, keys and signatures (they are hashed
// as text, so upper case would give one key two spellings). It does not
// check that a key is a point on the curve; the ECDH and signature checks
// that use it do, at no extra cost.
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// VerifyEvent reports whether ev carries a valid BIP-340 signature by its
// pubkey over its id. It checks first that id, pubkey and sig are
// lowercase hex of their exact lengths: go-nostr's libsecp256k1 build of
// CheckSignature decodes them into fixed-size arrays and panics on longer
// input, so an event with a 130-character sig would crash whoever checks
// it. Every signature check on data from the network goes through here.
// It does not check that the id matches the content (see CheckID).
func VerifyEvent(ev *nostr.Event) bool {
	if !IsLowerHex(ev.ID, 64) || !IsLowerHex(ev.PubKey, 64) || !IsLowerHex(ev.Sig, 128) {
		return false
	}
	ok, err := ev.CheckSignature()
	return ok && err == nil
}
