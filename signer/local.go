package signer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Local is a Keyer holding a secret key in memory.
//
// It caches NIP-44 conversation keys per peer: deriving one costs an ECDH
// (~145 µs), which would otherwise dominate every encrypted tool call.
type Local struct {
	secretHex string
	pubHex    string
	priv      *btcec.PrivateKey

	convMu    sync.RWMutex
	convCache map[string][32]byte
}

var _ Keyer = (*Local)(nil)

// Generate returns a Local with a fresh random secret key.
func Generate() (*Local, error) {
	var b [32]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("generate key: %w", err)
		}
		if l, err := newLocal(b[:]); err == nil {
			return l, nil
		}
	}
}

// ParseSecret parses an nsec1… or 64-hex secret key (either case, surrounding
// whitespace ignored). The error never includes the input.
func ParseSecret(s string) (*Local, error) {
	s = strings.TrimSpace(s)
	var raw []byte
	switch {
	case strings.HasPrefix(strings.ToLower(s), "nsec1"):
		prefix, v, err := nip19.Decode(strings.ToLower(s))
		if err != nil || prefix != "nsec" {
			return nil, ErrInvalidSecret
		}
		str, _ := v.(string)
		raw, err = hex.DecodeString(str)
		if err != nil {
			return nil, ErrInvalidSecret
		}
	case len(s) == 64:
		var err error
		raw, err = hex.DecodeString(s)
		if err != nil {
			return nil, ErrInvalidSecret
		}
	default:
		return nil, ErrInvalidSecret
	}
	return newLocal(raw)
}

func newLocal(raw []byte) (*Local, error) {
	if len(raw) != 32 {
		return nil, ErrInvalidSecret
	}
	var scalar btcec.ModNScalar
	if overflow := scalar.SetByteSlice(raw); overflow || scalar.IsZero() {
		return nil, ErrInvalidSecret
	}
	priv, _ := btcec.PrivKeyFromBytes(raw)
	return &Local{
		secretHex: hex.EncodeToString(raw),
		pubHex:    hex.EncodeToString(schnorr.SerializePubKey(priv.PubKey())),
		priv:      priv,
		convCache: make(map[string][32]byte),
	}, nil
}

// PublicKey returns the hex x-only public key.
func (l *Local) PublicKey() string { return l.pubHex }

// NPub returns the public key in NIP-19 npub form.
func (l *Local) NPub() string {
	npub, _ := nip19.EncodePublicKey(l.pubHex)
	return npub
}

// NSec returns the secret key in NIP-19 nsec form. Only `toolbus key show
// --secret` and key file writers should ever call it.
func (l *Local) NSec() string {
	nsec, _ := nip19.EncodePrivateKey(l.secretHex)
	return nsec
}

// SignEvent sets ev.PubKey, ev.ID and ev.Sig.
func (l *Local) SignEvent(_ context.Context, ev *nostr.Event) error {
	if err := ev.Sign(l.secretHex); err != nil {
		return fmt.Errorf("sign event: %w", err)
	}
	return nil
}

// SignHash returns the BIP-340 signature of hash.
func (l *Local) SignHash(_ context.Context, hash [32]byte) ([64]byte, error) {
	var out [64]byte
	sig, err := schnorr.Sign(l.priv, hash[:])
	if err != nil {
		return out, fmt.Errorf("sign hash: %w", err)
	}
	copy(out[:], sig.Serialize())
	return out, nil
}

// Encrypt returns the NIP-44 v2 payload of plaintext for peer.
func (l *Local) Encrypt(_ context.Context, plaintext, peer string) (string, error) {
	ck, err := l.conversationKey(peer)
	if err != nil {
		return "", err
	}
	return nip44.Encrypt(plaintext, ck)
}

// Decrypt opens a NIP-44 v2 payload from peer.
func (l *Local) Decrypt(_ context.Context, payload, peer string) (string, error) {
	ck, err := l.conversationKey(peer)
	if err != nil {
		return "", err
	}
	return nip44.Decrypt(payload, ck)
}

func (l *Local) conversationKey(peer string) ([32]byte, error) {
	l.convMu.RLock()
	ck, ok := l.convCache[peer]
	l.convMu.RUnlock()
	if ok {
		return ck, nil
	}
	ck, err := nip44.GenerateConversationKey(peer, l.secretHex)
	if err != nil {
		return ck, fmt.Errorf("nip44 conversation key: %w", ErrInvalidPubKey)
	}
	l.convMu.Lock()
	l.convCache[peer] = ck
	l.convMu.Unlock()
	return ck, nil
}

// String redacts the secret so that logging a Local is safe.
func (l *Local) String() string { return "signer.Local{pubkey:" + l.pubHex + "}" }

// GoString redacts the secret for %#v.
func (l *Local) GoString() string { return l.String() }

// ParsePubKey parses an npub1… or 64-hex public key and returns it as
// lowercase hex. It checks that the key is a valid x-only point.
func ParsePubKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	var hexKey string
	switch {
	case strings.HasPrefix(strings.ToLower(s), "npub1"):
		prefix, v, err := nip19.Decode(strings.ToLower(s))
		if err != nil || prefix != "npub" {
			return "", ErrInvalidPubKey
		}
		hexKey, _ = v.(string)
	case len(s) == 64:
		hexKey = strings.ToLower(s)
	default:
		return "", ErrInvalidPubKey
	}
	raw, err := hex.DecodeString(hexKey)
	if err != nil || len(raw) != 32 {
		return "", ErrInvalidPubKey
	}
	if _, err := schnorr.ParsePubKey(raw); err != nil {
		return "", ErrInvalidPubKey
	}
	return hexKey, nil
}

// EncodeNPub returns the npub form of a hex public key, or the input unchanged
// when it is not valid hex (for display only).
func EncodeNPub(pubHex string) string {
	npub, err := nip19.EncodePublicKey(pubHex)
	if err != nil {
		return pubHex
	}
	return npub
}
