// Package signer holds a Nostr identity and everything that signs with it.
//
// A [Signer] is the one abstraction the rest of toolbus signs through: events
// (relay metadata, tool calls, NIP-98 tokens) and raw 32-byte hashes (the
// BIP-340 signatures of git commit signing, NIP-GS). [Local] is the in-memory
// implementation over a secret key loaded from a key file or the environment.
//
// Secrets never leave this package in printable form: errors describe what is
// wrong with a key without quoting it, and [Local] redacts itself when
// formatted, so a stray log line cannot leak it.
package signer

import (
	"context"
	"errors"

	"github.com/nbd-wtf/go-nostr"
)

// Signer signs as one Nostr identity.
type Signer interface {
	// PublicKey returns the x-only public key as 64 lowercase hex characters.
	PublicKey() string
	// SignEvent sets ev.PubKey, ev.ID and ev.Sig.
	SignEvent(ctx context.Context, ev *nostr.Event) error
	// SignHash returns the 64-byte BIP-340 Schnorr signature of hash.
	SignHash(ctx context.Context, hash [32]byte) ([64]byte, error)
}

// Cipher encrypts to and decrypts from a peer with NIP-44 v2.
type Cipher interface {
	// Encrypt returns the base64 NIP-44 v2 payload of plaintext for peer.
	Encrypt(ctx context.Context, plaintext, peer string) (string, error)
	// Decrypt opens a base64 NIP-44 v2 payload sent by peer.
	Decrypt(ctx context.Context, payload, peer string) (string, error)
}

// Keyer is a Signer that can also encrypt; gift-wrapped tool traffic needs both.
type Keyer interface {
	Signer
	Cipher
}

// Sentinel errors. They never carry key material.
var (
	// ErrInvalidSecret means a secret key is neither nsec1… nor 64 hex characters,
	// or is not a valid secp256k1 scalar.
	ErrInvalidSecret = errors.New("invalid secret key: want nsec1… or 64 hex characters")
	// ErrInvalidPubKey means a public key is neither npub1… nor 64 hex characters,
	// or is not a point on the curve.
	ErrInvalidPubKey = errors.New("invalid public key: want npub1… or 64 hex characters")
	// ErrNoKey means no key source (flag, environment, config) was given.
	ErrNoKey = errors.New("no key: pass --key-file FILE, set NOSTR_PRIVATE_KEY, or set key_file in the config")
	// ErrKeyFileMode means a key file is readable or writable by group or others.
	ErrKeyFileMode = errors.New("key file permissions too broad")
	// ErrKeyFileSize means a key file is larger than any key encoding.
	ErrKeyFileSize = errors.New("key file too large")
	// ErrKeyFileExists means a new key would overwrite an existing file.
	ErrKeyFileExists = errors.New("key file already exists")
)
