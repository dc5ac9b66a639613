package gitsig

import (
	"bytes"
	"encoding/base64"
	"fmt"
)

// The armor lines. git recognises a signature by the begin line (its x509
// marker), so it also never mistakes one for a PGP or SSH signature.
const (
	armorBegin = "-----BEGIN SIGNED MESSAGE-----"
	armorEnd   = "-----END SIGNED MESSAGE-----"
)

// maxArmored is the longest armored signature: both markers, the longest
// base64 line, three newlines. Reading one byte past it is enough to tell
// that a signature file is too big.
const maxArmored = len(armorBegin) + MaxBase64Line + len(armorEnd) + 3

// armor wraps an envelope in the three armor lines, each ending in LF.
func armor(envelope []byte) []byte {
	b64 := base64.StdEncoding.EncodeToString(envelope)
	out := make([]byte, 0, len(armorBegin)+len(b64)+len(armorEnd)+3)
	out = append(out, armorBegin+"\n"...)
	out = append(out, b64...)
	out = append(out, '\n')
	return append(out, armorEnd+"\n"...)
}

// dearmor returns the decoded envelope of an armored signature.
//
// Exactly begin-line, one base64 line, end-line is accepted, with or without
// a final LF. Everything else — CR, blank or extra lines, a second block,
// wrapped base64, padding or stray bits a decoder would tolerate — is
// refused: each such variant would be a different commit carrying an
// equally valid signature.
func dearmor(armored []byte) ([]byte, error) {
	if len(armored) > maxArmored {
		return nil, fmt.Errorf("signature is %d bytes, longer than any valid one (%d)", len(armored), maxArmored)
	}
	lines := bytes.Split(bytes.TrimSuffix(armored, []byte("\n")), []byte("\n"))
	if len(lines) != 3 {
		return nil, fmt.Errorf("armor has %d lines, want 3", len(lines))
	}
	if string(lines[0]) != armorBegin || string(lines[2]) != armorEnd {
		return nil, fmt.Errorf("armor markers are not %q / %q", armorBegin, armorEnd)
	}
	b64 := lines[1]
	if len(b64) > MaxBase64Line {
		return nil, fmt.Errorf("base64 line is %d bytes, limit %d", len(b64), MaxBase64Line)
	}
	// Go's decoder skips CR and LF inside its input; decoding and then
	// requiring the canonical re-encoding rules that out along with
	// non-zero padding bits.
	env, err := base64.StdEncoding.DecodeString(string(b64))
	if err != nil || base64.StdEncoding.EncodeToString(env) != string(b64) {
		return nil, fmt.Errorf("base64 line is not canonical standard base64")
	}
	if len(env) > MaxJSON {
		return nil, fmt.Errorf("envelope is %d bytes, limit %d", len(env), MaxJSON)
	}
	return env, nil
}
