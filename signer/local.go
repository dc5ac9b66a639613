package signer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
//
// Everything secret sits behind a pointer (priv, conv) and Local holds no
// lock, so a copied Local stays safe to use and reflection-based printing
// (a Local in an unexported struct field, where fmt cannot call Format)
// shows only addresses, never key bytes. The hex secret is derived on
// demand rather than stored for the same reason.
type Local struct {
	pubHex string
	priv   *btcec.PrivateKey
	fast   *eventKey // nil only if libsecp256k1 refused the key
	conv   *convCache
}

// maxConvKeys bounds the conversation-key cache. Gift-wrapped tool traffic is
// encrypted by a fresh random key per message, so every unwrap asks for the
// key of a peer that is never seen again; without a bound the cache would grow
// by one entry per message for the life of the process. 4096 entries stay
// well under 1 MB, and are far more distinct long-lived peers than one
// workspace has.
const maxConvKeys = 4096

// convCache maps a peer's hex public key to its NIP-44 conversation key.
// It holds at most maxConvKeys entries (see put).
type convCache struct {
	mu   sync.RWMutex
	keys map[string][32]byte
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
	var sk [32]byte
	copy(sk[:], raw)
	defer clear(sk[:])
	return &Local{
		pubHex: hex.EncodeToString(schnorr.SerializePubKey(priv.PubKey())),
		priv:   priv,
		fast:   newEventKey(&sk),
		conv:   &convCache{keys: make(map[string][32]byte)},
	}, nil
}

// secretHex is the secret as 64 lowercase hex characters, the form go-nostr
// takes. It is computed per call so that no printable copy lives in Local.
func (l *Local) secretHex() string { return hex.EncodeToString(l.priv.Serialize()) }

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
	nsec, _ := nip19.EncodePrivateKey(l.secretHex())
	return nsec
}

// SignEvent sets ev.PubKey, ev.ID and ev.Sig.
func (l *Local) SignEvent(_ context.Context, ev *nostr.Event) error {
	if l.fast == nil {
		return errors.New("sign event: libsecp256k1 refused the key")
	}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{} // serialised as [], as go-nostr's Sign does
	}
	ev.PubKey = l.pubHex
	hash := sha256.Sum256(ev.Serialize())
	sig, err := l.fast.sign(&hash)
	if err != nil {
		return fmt.Errorf("sign event: %w", err)
	}
	ev.ID = hex.EncodeToString(hash[:])
	ev.Sig = hex.EncodeToString(sig[:])
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
	l.conv.mu.RLock()
	ck, ok := l.conv.keys[peer]
	l.conv.mu.RUnlock()
	if ok {
		return ck, nil
	}
	ck, err := conversationKey(&l.priv.Key, peer)
	if err != nil {
		return ck, fmt.Errorf("nip44 conversation key: %w", err)
	}
	l.conv.put(peer, ck)
	return ck, nil
}

// put stores ck for peer, first evicting one entry when the cache is full.
// The victim is whichever key map iteration yields first; Go starts map
// iteration at a random position, so this is cheap near-random eviction
// (O(1), no bookkeeping). Random rather than LRU is deliberate: a miss only
// costs one ECDH, and hot peers that lose their entry get it back on next use.
func (c *convCache) put(peer string, ck [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.keys[peer]; !ok && len(c.keys) >= maxConvKeys {
		for victim := range c.keys {
			delete(c.keys, victim)
			break
		}
	}
	c.keys[peer] = ck
}

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
