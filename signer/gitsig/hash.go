package gitsig

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// domain separates NIP-GS signatures from Nostr events, NIP-98 tokens and
// NIP-OA attestations made with the same key.
const domain = "nostr:git:v1:"

// ErrPayloadTooLarge means a payload to sign or verify exceeds MaxPayload.
var ErrPayloadTooLarge = fmt.Errorf("payload is larger than %d bytes", MaxPayload)

// signingHash is SHA-256(domain || t || ":" || oa binding || payload), the
// payload read from r. It streams: a 100 MiB commit is hashed, not held.
//
// The oa binding puts the attestation under the signature, so it can be
// neither stripped from a signature nor added to one.
func signingHash(t int64, oa *Attestation, r io.Reader) ([32]byte, error) {
	var sum [32]byte
	h := sha256.New()
	prefix := strconv.AppendInt([]byte(domain), t, 10)
	prefix = append(prefix, ':')
	if oa != nil {
		prefix = append(prefix, oa.Owner+":"+oa.Conditions+":"+oa.Sig+":"...)
	}
	h.Write(prefix)
	n, err := io.Copy(h, io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return sum, fmt.Errorf("read payload: %w", err)
	}
	if n > MaxPayload {
		return sum, ErrPayloadTooLarge
	}
	h.Sum(sum[:0])
	return sum, nil
}

// verifyHash reports whether sigHex is pkHex's BIP-340 signature of h. A
// signature whose r or s is out of range simply does not verify: it is
// well-formed hex, so it is a bad signature, not a malformed one.
func verifyHash(pkHex, sigHex string, h [32]byte) bool {
	pkRaw, err1 := hex.DecodeString(pkHex)
	sigRaw, err2 := hex.DecodeString(sigHex)
	if err := errors.Join(err1, err2); err != nil {
		return false
	}
	pk, err := schnorr.ParsePubKey(pkRaw)
	if err != nil {
		return false
	}
	sig, err := schnorr.ParseSignature(sigRaw)
	return err == nil && sig.Verify(h[:], pk)
}
