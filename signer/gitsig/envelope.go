package gitsig

import (
	"encoding/hex"
	"strconv"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"toolbus/signer"
)

// zeroKeyID is the key id ERRSIG carries when no signer key could be read.
const zeroKeyID = "0000000000000000"

// envelope is the decoded JSON of a signature, every field validated.
type envelope struct {
	pk  string
	sig string
	t   int64
	oa  *Attestation
}

// canonical is the one serialisation of e that verifiers accept: compact,
// fields in the order v, pk, sig, t, oa. No field needs JSON escaping: hex,
// a decimal, and NIP-OA conditions, whose grammar has no quote, backslash
// or control character.
func (e *envelope) canonical() []byte {
	b := make([]byte, 0, 320)
	b = append(b, `{"v":1,"pk":"`...)
	b = append(b, e.pk...)
	b = append(b, `","sig":"`...)
	b = append(b, e.sig...)
	b = append(b, `","t":`...)
	b = strconv.AppendInt(b, e.t, 10)
	if e.oa != nil {
		b = append(b, `,"oa":["`...)
		b = append(b, e.oa.Owner...)
		b = append(b, `","`...)
		b = append(b, e.oa.Conditions...)
		b = append(b, `","`...)
		b = append(b, e.oa.Sig...)
		b = append(b, `"]`...)
	}
	return append(b, '}')
}

// keyID is what ERRSIG names: the signer's key when known.
func keyID(pk string) string {
	if pk == "" {
		return zeroKeyID
	}
	return pk
}

// isXOnlyKey reports whether s is 64 lowercase hex characters naming a point
// on secp256k1 (BIP-340 lift_x succeeds).
func isXOnlyKey(s string) bool {
	if !signer.IsLowerHex(s, 64) {
		return false
	}
	raw, _ := hex.DecodeString(s)
	_, err := schnorr.ParsePubKey(raw)
	return err == nil
}

// checkAttestation validates an oa field's structure against signer pk. An
// invalid structure makes the whole signature malformed; a signature or
// condition that does not hold only makes the attestation unproven (see
// ownerErr).
func checkAttestation(oa *Attestation, pk string) string {
	switch {
	case !isXOnlyKey(oa.Owner):
		return "oa[0] is not a valid x-only public key in lowercase hex"
	case oa.Owner == pk:
		return "oa[0] equals pk: an owner cannot attest itself"
	case !signer.IsLowerHex(oa.Sig, 128):
		return "oa[2] is not 128 lowercase hex characters"
	}
	if _, err := parseConditions(oa.Conditions); err != nil {
		return "oa[1]: " + err.Error()
	}
	return ""
}
