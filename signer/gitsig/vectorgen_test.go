package gitsig

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"toolbus/signer"
)

// The fixed inputs of spec/vectors/nip-gs. The keys are TEST-ONLY: their
// secrets are published in the vector file.
const (
	vecSignerByte = 0x07
	vecOwnerByte  = 0x08
	vecOtherByte  = 0x09
	vecTime       = 1750000000
	vecPayload    = "tree 4b825dc642cb6eb9a060e54bf899d69f7cb46101\n" +
		"author Vector Signer <vectors@toolbus.invalid> 1750000000 +0000\n" +
		"committer Vector Signer <vectors@toolbus.invalid> 1750000000 +0000\n" +
		"\nNIP-GS test vector\n"
	vecConditions = "kind=1&created_at>1700000000&created_at<1800000000"
)

// caseSpec is a vector case before its status lines are computed.
type caseSpec struct {
	name, why, expect, owner string
	signature                string
	payload                  *string // nil: the file's payload
	zeroKeyID                bool    // ERRSIG cannot name the signer
}

// vecBase holds the valid signatures the malformed cases are derived from.
type vecBase struct {
	signer, owner testKey
	plain, oa     string // armored
	plainJSON     string
	oaJSON        string
}

func newVecBase(t testing.TB) vecBase {
	b := vecBase{signer: newTestKey(vecSignerByte), owner: newTestKey(vecOwnerByte)}
	b.plain = forceSign(t, b.signer, vecPayload, vecTime, nil)
	b.oa = forceSign(t, b.signer, vecPayload, vecTime, attest(t, b.owner, b.signer.PublicKey(), ""))
	b.plainJSON, b.oaJSON = unarmor(t, b.plain), unarmor(t, b.oa)
	return b
}

func unarmor(t testing.TB, armored string) string {
	t.Helper()
	js, err := dearmor([]byte(armored))
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// edit replaces the one occurrence of old in s, failing when there is none:
// a silently unchanged vector would test nothing.
func edit(t testing.TB, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("vector edit: %q does not occur exactly once", old)
	}
	return strings.Replace(s, old, new, 1)
}

func armorJSON(js string) string { return string(armor([]byte(js))) }

func validCases(t testing.TB, b vecBase) []caseSpec {
	pk := b.signer.PublicKey()
	other := newTestKey(vecOtherByte).PublicKey()
	return []caseSpec{
		{name: "valid", expect: "GOODSIG", signature: b.plain,
			why: "signature over the payload, no owner attestation"},
		{name: "valid-no-final-newline", expect: "GOODSIG", signature: strings.TrimSuffix(b.plain, "\n"),
			why: "the final LF after the end marker is optional for verifiers"},
		{name: "valid-attested", expect: "GOODSIG", owner: "valid", signature: b.oa,
			why: "with an owner attestation, empty conditions"},
		{name: "valid-attested-conditions", expect: "GOODSIG", owner: "valid",
			signature: forceSign(t, b.signer, vecPayload, vecTime, attest(t, b.owner, pk, vecConditions)),
			why:       "conditions hold at t; kind= is ignored for git"},
		{name: "attestation-for-another-key", expect: "GOODSIG", owner: "invalid",
			signature: forceSign(t, b.signer, vecPayload, vecTime, attest(t, b.owner, other, "")),
			why:       "the owner signed for a different agent key: commit signature good, attestation not; TRUST_UNDEFINED"},
		{name: "attestation-expired", expect: "GOODSIG", owner: "invalid",
			signature: forceSign(t, b.signer, vecPayload, vecTime, attest(t, b.owner, pk, "created_at<1700000000")),
			why:       "created_at<1700000000 does not hold at t=1750000000"},
	}
}

func badCases(t testing.TB, b vecBase) []caseSpec {
	altered := strings.Replace(vecPayload, "test vector", "test vectoR", 1)
	sig := b.plainJSON[strings.Index(b.plainJSON, `"sig":"`)+7:][:128]
	flipped := sig[:127] + "0"
	if sig[127] == '0' {
		flipped = sig[:127] + "1"
	}
	return []caseSpec{
		{name: "payload-altered", expect: "BADSIG", signature: b.plain, payload: &altered,
			why: "one byte of the commit changed after signing"},
		{name: "t-altered", expect: "BADSIG", signature: armorJSON(edit(t, b.plainJSON, `"t":1750000000`, `"t":1750000001`)),
			why: "t is bound by the signature"},
		{name: "sig-altered", expect: "BADSIG", signature: armorJSON(edit(t, b.plainJSON, sig, flipped)),
			why: "last hex digit of sig changed"},
		{name: "sig-out-of-range", expect: "BADSIG", signature: armorJSON(edit(t, b.plainJSON, sig, strings.Repeat("f", 128))),
			why: "well-formed hex whose r and s are out of range is a bad signature, not a malformed one"},
		{name: "oa-stripped", expect: "BADSIG", signature: armorJSON(b.oaJSON[:strings.Index(b.oaJSON, `,"oa":`)] + "}"),
			why: "removing oa from an attested signature invalidates it"},
		{name: "oa-injected", expect: "BADSIG",
			signature: armorJSON(strings.TrimSuffix(b.plainJSON, "}") + b.oaJSON[strings.Index(b.oaJSON, `,"oa":`):]),
			why:       "adding oa to a plain signature invalidates it"},
	}
}

// noncanonicalBase64 sets padding bits a lenient decoder ignores: the same
// JSON, a different commit.
func noncanonicalBase64(t testing.TB, js string) string {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString([]byte(js))
	i := strings.IndexByte(b64, '=') - 1
	if i < 0 {
		t.Fatal("vector needs a padded envelope")
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b64 = b64[:i] + string(alphabet[strings.IndexByte(alphabet, b64[i])+1]) + b64[i+1:]
	return armorBegin + "\n" + b64 + "\n" + armorEnd + "\n"
}

// notOnCurve is the smallest x (as 64 hex) that is not on secp256k1.
func notOnCurve() string {
	for x := 1; ; x++ {
		h := hex.EncodeToString(append(make([]byte, 31), byte(x)))
		if _, err := signer.ParsePubKey(h); err != nil {
			return h
		}
	}
}
