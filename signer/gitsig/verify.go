package gitsig

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// Verify checks an armored NIP-GS signature of payload.
//
// On success it returns who signed and when they say they did; an owner
// attestation, if any, is reported with its own verdict in Signature.Owner
// and does not affect the result. On failure the error is a *VerifyError:
// errors.Is(err, ErrBadSignature) for a well-formed signature that does not
// match the payload (git's BADSIG), errors.Is(err, ErrMalformed) for anything
// that cannot be processed (git's ERRSIG).
func Verify(payload, armored []byte) (*Signature, error) {
	env, err := parseArmored(armored)
	if err != nil {
		return nil, err
	}
	if len(payload) > MaxPayload {
		return nil, malformed(env.pk, ErrPayloadTooLarge.Error())
	}
	return env.verify(bytes.NewReader(payload))
}

// verify checks env's signature over the payload read from r.
func (e *envelope) verify(r io.Reader) (*Signature, error) {
	h, err := signingHash(e.t, e.oa, r)
	if err != nil {
		// Too large, or unreadable: nothing was verified either way.
		return nil, malformed(e.pk, err.Error())
	}
	if !verifyHash(e.pk, e.sig, h) {
		return nil, &VerifyError{Kind: ErrBadSignature, PubKey: e.pk,
			Reason: "the signature does not match this commit"}
	}
	sig := &Signature{PubKey: e.pk, Time: time.Unix(e.t, 0).UTC()}
	if e.oa != nil {
		sig.Owner = &Owner{PubKey: e.oa.Owner, Conditions: e.oa.Conditions,
			Err: ownerErr(e.oa, e.pk, e.t)}
	}
	return sig, nil
}

// classify returns the *VerifyError inside err, treating anything else as
// malformed so that no error can be mistaken for success.
func classify(err error) *VerifyError {
	var ve *VerifyError
	if errors.As(err, &ve) {
		return ve
	}
	return malformed("", err.Error())
}
