package gitsig

import (
	"errors"
	"time"
)

// Limits of NIP-GS v1. They bound what a verifier reads and parses, so a
// hostile commit cannot make `git log --show-signature` allocate without end.
const (
	// MaxPayload is the largest git object payload signed or verified:
	// 100 MiB (100 × 2²⁰ bytes, the reading of "100 MB" the reference
	// implementation uses).
	MaxPayload = 100 << 20
	// MaxJSON is the largest decoded envelope, in bytes.
	MaxJSON = 2048
	// MaxBase64Line is the longest base64 line of the armor, in bytes.
	MaxBase64Line = 4096
	// MaxTime is the largest timestamp t; the field is an unsigned 32-bit
	// number of seconds.
	MaxTime = 1<<32 - 1
)

// Signature is what a valid signature says.
type Signature struct {
	// PubKey is the signer's x-only public key, 64 lowercase hex characters.
	PubKey string
	// Time is the signing time the signer claims (t), in UTC. Nothing
	// checks it against a clock: the signer chose it.
	Time time.Time
	// Owner is the NIP-OA owner attestation ("oa"), nil when absent.
	Owner *Owner
}

// Owner is an owner attestation found in a valid signature: a claim that the
// owner key authorized the signing key. The owner did not sign the commit.
type Owner struct {
	// PubKey is the owner's x-only public key, 64 lowercase hex characters.
	PubKey string
	// Conditions is the NIP-OA conditions string, possibly empty.
	Conditions string
	// Err is nil when the owner's signature verifies and the conditions hold
	// at the signing time; otherwise it says why the claim is unproven. The
	// commit signature itself is still valid either way.
	Err error
}

// Attestation is a NIP-OA owner attestation to embed when signing: the
// owner's public key, the conditions, and the owner's BIP-340 signature over
// SHA-256("nostr:agent-auth:" || signer pubkey || ":" || conditions), all as
// they appear in a NIP-OA auth tag.
type Attestation struct {
	// Owner is the owner's x-only public key, 64 lowercase hex characters.
	Owner string
	// Conditions is the NIP-OA conditions string, empty for none.
	Conditions string
	// Sig is the owner's signature, 128 lowercase hex characters.
	Sig string
}

// Verification outcomes other than success. Every error [Verify] returns is a
// *VerifyError whose Kind is one of these, so errors.Is tells them apart.
var (
	// ErrMalformed means the signature could not be processed at all:
	// bad armor, non-canonical encoding, a missing or invalid field, an
	// oversized payload. Git is told ERRSIG.
	ErrMalformed = errors.New("malformed NIP-GS signature")
	// ErrBadSignature means a well-formed signature does not verify for the
	// payload: the commit or the signature was altered. Git is told BADSIG.
	ErrBadSignature = errors.New("bad NIP-GS signature")
)

// VerifyError says why a signature was not accepted.
type VerifyError struct {
	// Kind is ErrMalformed or ErrBadSignature.
	Kind error
	// PubKey is the signer's key when it could be read from the envelope,
	// else empty. ERRSIG and BADSIG name it.
	PubKey string
	// Reason is a short human explanation.
	Reason string
}

// Error returns the kind and the reason.
func (e *VerifyError) Error() string { return e.Kind.Error() + ": " + e.Reason }

// Unwrap returns Kind, for errors.Is.
func (e *VerifyError) Unwrap() error { return e.Kind }

func malformed(pk, reason string) *VerifyError {
	return &VerifyError{Kind: ErrMalformed, PubKey: pk, Reason: reason}
}
