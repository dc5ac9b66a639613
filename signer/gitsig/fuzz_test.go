package gitsig

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary payloads and signatures to Verify. It must
// never panic, every failure must be classified (BADSIG or ERRSIG), and a
// success is only possible for the valid signatures the corpus starts from:
// the fuzzer cannot forge one, so any other input that verifies means a
// malformed or altered signature slipped through.
func FuzzVerify(f *testing.F) {
	b := newVecBase(f)
	valid := map[string]string{} // armored (without final LF) -> payload
	for _, group := range [][]caseSpec{validCases(f, b), badCases(f, b), armorCases(f, b), jsonCases(f, b), oaCases(f, b)} {
		for _, c := range group {
			payload := vecPayload
			if c.payload != nil {
				payload = *c.payload
			}
			f.Add([]byte(payload), []byte(c.signature))
			if c.expect == "GOODSIG" {
				valid[strings.TrimSuffix(c.signature, "\n")] = payload
			}
		}
	}
	f.Fuzz(func(t *testing.T, payload, armored []byte) {
		sig, err := Verify(payload, armored)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		want, ok := valid[string(bytes.TrimSuffix(armored, []byte("\n")))]
		if !ok || want != string(payload) {
			t.Fatalf("verified an input that is not a known valid signature: %q over %q (%+v)", armored, payload, sig)
		}
	})
}
