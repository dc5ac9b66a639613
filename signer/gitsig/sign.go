package gitsig

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"toolbus/signer"
)

// Sign returns the armored NIP-GS signature of payload by s, claiming
// signing time t (unix seconds, 0 to MaxTime). The result is exactly what
// git expects on the signing program's stdout.
func Sign(ctx context.Context, s signer.Signer, payload []byte, t int64) ([]byte, error) {
	return SignAttested(ctx, s, payload, t, nil)
}

// SignAttested is Sign with an owner attestation embedded in the signature
// (none when oa is nil). It refuses an attestation that would not verify for
// s at t, since every verifier would then flag the commit.
func SignAttested(ctx context.Context, s signer.Signer, payload []byte, t int64, oa *Attestation) ([]byte, error) {
	if len(payload) > MaxPayload {
		return nil, ErrPayloadTooLarge
	}
	return signReader(ctx, s, bytes.NewReader(payload), t, oa)
}

// signReader signs the payload read from r, which it reads to the end or
// to just past MaxPayload.
func signReader(ctx context.Context, s signer.Signer, r io.Reader, t int64, oa *Attestation) ([]byte, error) {
	env, err := newEnvelope(s.PublicKey(), t, oa)
	if err != nil {
		return nil, err
	}
	h, err := signingHash(t, env.oa, r)
	if err != nil {
		return nil, err
	}
	sig, err := s.SignHash(ctx, h)
	if err != nil {
		return nil, err
	}
	env.sig = hex.EncodeToString(sig[:])
	// A signer behind the interface may be remote or faulty; a signature
	// that does not verify must not end up in a commit, where it would
	// stay forever.
	if !verifyHash(env.pk, env.sig, h) {
		return nil, errors.New("signer returned a signature that does not verify")
	}
	return armor(env.canonical()), nil
}

// newEnvelope checks everything about a signature to be made except the
// signature itself, so that nothing is hashed or signed in vain.
func newEnvelope(pk string, t int64, oa *Attestation) (*envelope, error) {
	if !isXOnlyKey(pk) {
		return nil, errors.New("signer's public key is not 64 lowercase hex characters of a valid x-only key")
	}
	if t < 0 || t > MaxTime {
		return nil, fmt.Errorf("signing time %d is outside 0..%d", t, MaxTime)
	}
	env := &envelope{pk: pk, t: t}
	if oa != nil {
		cp := *oa
		if reason := checkAttestation(&cp, pk); reason != "" {
			return nil, fmt.Errorf("owner attestation: %s", reason)
		}
		if err := ownerErr(&cp, pk, t); err != nil {
			return nil, fmt.Errorf("owner attestation: %w", err)
		}
		env.oa = &cp
	}
	// The signature is always 128 hex characters, so the size is known now.
	env.sig = strings.Repeat("0", 128)
	if n := len(env.canonical()); n > MaxJSON {
		return nil, fmt.Errorf("envelope would be %d bytes, limit %d (conditions too long)", n, MaxJSON)
	}
	return env, nil
}
