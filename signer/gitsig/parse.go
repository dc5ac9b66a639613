package gitsig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"toolbus/signer"
)

// parseArmored decodes and validates an armored signature. Every error is a
// *VerifyError of kind ErrMalformed.
func parseArmored(armored []byte) (*envelope, error) {
	js, err := dearmor(armored)
	if err != nil {
		return nil, malformed("", err.Error())
	}
	return parseEnvelope(js)
}

// parseEnvelope validates envelope JSON: a single object, only the v1 keys,
// none twice, every field valid, and byte-identical to its canonical form.
//
// encoding/json alone would accept duplicate keys (last wins), fold key case
// and replace invalid UTF-8, so the object is walked token by token instead,
// and the canonical comparison catches everything a tokenizer normalises
// (whitespace, escapes, number spellings, key order).
func parseEnvelope(js []byte) (*envelope, error) {
	if !utf8.Valid(js) {
		return nil, malformed("", "envelope is not valid UTF-8")
	}
	raw, err := decodeRaw(js)
	if err != nil {
		return nil, malformed(raw.validPK(), err.Error())
	}
	env, err := raw.validate()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(env.canonical(), js) {
		return nil, malformed(env.pk, "envelope JSON is not canonical (compact, keys in order v, pk, sig, t, oa)")
	}
	return env, nil
}

// rawEnvelope holds the fields as decoded, before validation.
type rawEnvelope struct {
	seen    map[string]bool
	v, t    json.Number
	pk, sig string
	oa      []string
}

var errNotObject = errors.New("envelope is not one valid JSON object")

// decodeRaw walks the object. It returns what it decoded even on error, so
// that ERRSIG can still name the signer when "pk" came before the fault.
func decodeRaw(js []byte) (*rawEnvelope, error) {
	r := &rawEnvelope{seen: make(map[string]bool)}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return r, errNotObject
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return r, errNotObject
		}
		if r.seen[key] {
			return r, fmt.Errorf("duplicate key %.20q", key)
		}
		r.seen[key] = true
		if err := r.field(dec, key); err != nil {
			return r, err
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return r, errNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, errNotObject
	}
	return r, nil
}

// validPK is the "pk" field if it is a valid key, else empty.
func (r *rawEnvelope) validPK() string {
	if r.seen["pk"] && isXOnlyKey(r.pk) {
		return r.pk
	}
	return ""
}

// field reads the value of key, checking only its JSON type.
func (r *rawEnvelope) field(dec *json.Decoder, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return errNotObject
	}
	var ok bool
	switch key {
	case "v":
		r.v, ok = tok.(json.Number)
	case "t":
		r.t, ok = tok.(json.Number)
	case "pk":
		r.pk, ok = tok.(string)
	case "sig":
		r.sig, ok = tok.(string)
	case "oa":
		r.oa, ok = readStrings(dec, tok)
	default:
		return fmt.Errorf("key %.20q is not allowed in a v1 envelope", key)
	}
	if !ok {
		return fmt.Errorf("%q has the wrong JSON type", key)
	}
	return nil
}

// readStrings reads an array of strings whose '[' is tok.
func readStrings(dec *json.Decoder, tok json.Token) ([]string, bool) {
	if tok != json.Delim('[') {
		return nil, false
	}
	out := []string{}
	for dec.More() {
		tok, err := dec.Token()
		s, ok := tok.(string)
		if err != nil || !ok {
			return nil, false
		}
		out = append(out, s)
	}
	tok, err := dec.Token()
	return out, err == nil && tok == json.Delim(']')
}

// validate checks every field against the v1 constraints.
func (r *rawEnvelope) validate() (*envelope, error) {
	pk := r.validPK()
	if !r.seen["v"] || r.v != "1" {
		return nil, malformed(pk, `"v" is missing or not 1`)
	}
	if pk == "" {
		return nil, malformed("", `"pk" is missing or not a valid x-only public key in lowercase hex`)
	}
	if !r.seen["sig"] || !signer.IsLowerHex(r.sig, 128) {
		return nil, malformed(pk, `"sig" is missing or not 128 lowercase hex characters`)
	}
	t, err := strconv.ParseInt(string(r.t), 10, 64)
	if !r.seen["t"] || err != nil || t < 0 || t > MaxTime {
		return nil, malformed(pk, `"t" is missing or not an integer from 0 to 4294967295`)
	}
	env := &envelope{pk: pk, sig: r.sig, t: t}
	if r.seen["oa"] {
		if len(r.oa) != 3 {
			return nil, malformed(pk, `"oa" is not an array of exactly 3 strings`)
		}
		env.oa = &Attestation{Owner: r.oa[0], Conditions: r.oa[1], Sig: r.oa[2]}
		if reason := checkAttestation(env.oa, pk); reason != "" {
			return nil, malformed(pk, reason)
		}
	}
	return env, nil
}
