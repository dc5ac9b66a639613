package gitsig

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"toolbus/signer"
)

// Round trip with the real in-memory signer, which draws its own nonces.
func TestSignVerifyLocal(t *testing.T) {
	l, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Sign(context.Background(), l, []byte(vecPayload), vecTime)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := Verify([]byte(vecPayload), out)
	if err != nil {
		t.Fatal(err)
	}
	if sig.PubKey != l.PublicKey() || !sig.Time.Equal(time.Unix(vecTime, 0)) || sig.Owner != nil {
		t.Fatalf("%+v", sig)
	}
	if _, err := Verify([]byte(vecPayload+"x"), out); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("altered payload: %v", err)
	}
}

func TestSignAttestedReportsOwner(t *testing.T) {
	k, owner := newTestKey(vecSignerByte), newTestKey(vecOwnerByte)
	oa := attest(t, owner, k.PublicKey(), vecConditions)
	out, err := SignAttested(context.Background(), k, []byte(vecPayload), vecTime, oa)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := Verify([]byte(vecPayload), out)
	if err != nil || sig.Owner == nil || sig.Owner.Err != nil ||
		sig.Owner.PubKey != owner.PublicKey() || sig.Owner.Conditions != vecConditions {
		t.Fatalf("%+v %v", sig, err)
	}
}

// Sign refuses whatever would produce a signature verifiers reject or flag.
func TestSignRefuses(t *testing.T) {
	k, owner := newTestKey(vecSignerByte), newTestKey(vecOwnerByte)
	pk, other := k.PublicKey(), newTestKey(vecOtherByte).PublicKey()
	ctx := context.Background()
	for name, tc := range map[string]struct {
		s  signer.Signer
		t  int64
		oa *Attestation
	}{
		"negative t":           {k, -1, nil},
		"t past 32 bits":       {k, MaxTime + 1, nil},
		"owner signed another": {k, vecTime, attest(t, owner, other, "")},
		"self attestation":     {k, vecTime, attest(t, k, pk, "")},
		"conditions fail at t": {k, vecTime, attest(t, owner, pk, "created_at<1000")},
		"malformed conditions": {k, vecTime, attest(t, owner, pk, "kind=1&")},
		"envelope over 2048":   {k, vecTime, attest(t, owner, pk, strings.Repeat("kind=1&", 230)+"kind=1")},
		"bad public key":       {badKey{k, strings.ToUpper(pk)}, vecTime, nil},
		"faulty signer":        {faultySigner{k}, vecTime, nil},
	} {
		if out, err := SignAttested(ctx, tc.s, []byte(vecPayload), tc.t, tc.oa); err == nil {
			t.Errorf("%s: signed:\n%s", name, out)
		}
	}
	if _, err := Sign(ctx, k, make([]byte, MaxPayload+1), vecTime); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("oversized payload: %v", err)
	}
}

// The JSON cap is inclusive: an envelope of exactly MaxJSON bytes is valid.
func TestEnvelopeSizeBoundary(t *testing.T) {
	b := newVecBase(t)
	over := oversized(t, b) // MaxJSON+1, grown by conditions
	env := decodeEnvelopeLoose(t, over)
	cond := env.oa.Conditions
	cond = cond[:len(cond)-1] // one digit fewer: still a valid clause
	out, err := SignAttested(context.Background(), b.signer, []byte(vecPayload), vecTime,
		attest(t, b.owner, b.signer.PublicKey(), cond))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(unarmorLoose(string(out))); n != MaxJSON {
		t.Fatalf("envelope is %d bytes", n)
	}
	if _, err := Verify([]byte(vecPayload), out); err != nil {
		t.Fatal(err)
	}
}

// decodeEnvelopeLoose parses an envelope bypassing the size limit.
func decodeEnvelopeLoose(t *testing.T, armored string) *envelope {
	t.Helper()
	raw, err := decodeRaw([]byte(unarmorLoose(armored)))
	if err != nil {
		t.Fatal(err)
	}
	env, err := raw.validate()
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestVerifyErrorsAreTyped(t *testing.T) {
	b := newVecBase(t)
	_, err := Verify([]byte("other"), []byte(b.plain))
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Kind != ErrBadSignature || ve.PubKey != b.signer.PublicKey() {
		t.Fatalf("%#v", err)
	}
	_, err = Verify(nil, []byte("junk"))
	if !errors.As(err, &ve) || ve.Kind != ErrMalformed || ve.PubKey != "" || errors.Is(err, ErrBadSignature) {
		t.Fatalf("%#v", err)
	}
	if _, err := Verify(make([]byte, MaxPayload+1), []byte(b.plain)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("oversized payload: %v", err)
	}
}

// badKey reports a public key in a spelling the spec forbids.
type badKey struct {
	testKey
	pk string
}

func (b badKey) PublicKey() string { return b.pk }

// faultySigner returns a signature that does not verify.
type faultySigner struct{ testKey }

func (faultySigner) SignHash(context.Context, [32]byte) ([64]byte, error) {
	var sig [64]byte
	sig[0] = 1
	return sig, nil
}
