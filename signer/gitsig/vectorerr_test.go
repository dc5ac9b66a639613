package gitsig

import (
	"encoding/base64"
	"strings"
	"testing"
)

// errCase is a malformed signature. namesPK says whether ERRSIG names the
// signer: only when the "pk" field itself was readable and valid.
func errCase(name, why, signature string, namesPK bool) caseSpec {
	return caseSpec{name: name, why: why, expect: "ERRSIG", signature: signature, zeroKeyID: !namesPK}
}

func armorCases(t testing.TB, b vecBase) []caseSpec {
	b64 := strings.Split(b.plain, "\n")[1]
	return []caseSpec{
		errCase("empty", "empty signature file", "", false),
		errCase("crlf", "CRLF line endings", strings.ReplaceAll(b.plain, "\n", "\r\n"), false),
		errCase("base64-wrapped", "base64 wrapped at 64 columns",
			armorBegin+"\n"+b64[:64]+"\n"+b64[64:]+"\n"+armorEnd+"\n", false),
		errCase("extra-final-newline", "a blank line after the end marker", b.plain+"\n", false),
		errCase("two-blocks", "two armor blocks", b.plain+b.plain, false),
		errCase("trailing-space", "a space after the begin marker", edit(t, b.plain, armorBegin, armorBegin+" "), false),
		errCase("wrong-end-marker", "end marker is not -----END SIGNED MESSAGE-----",
			edit(t, b.plain, armorEnd, "-----END SIGNATURE-----"), false),
		errCase("base64-noncanonical", "non-zero padding bits: decodes to the same JSON under a lenient decoder",
			noncanonicalBase64(t, b.oaJSON), false),
		errCase("base64-unpadded", "padding removed", strings.ReplaceAll(b.oa, "=", ""), false),
		errCase("base64-invalid", "not base64", armorBegin+"\n!!!!\n"+armorEnd+"\n", false),
		errCase("base64-too-long", "base64 line over 4096 bytes",
			armorBegin+"\n"+strings.Repeat("A", MaxBase64Line+4)+"\n"+armorEnd+"\n", false),
		errCase("json-too-large", "a canonical envelope of 2049 bytes", oversized(t, b), false),
		errCase("invalid-utf8", "envelope bytes are not UTF-8",
			armorJSON(edit(t, b.plainJSON, `"t":`, "\"t\xff\":")), false),
		errCase("not-object", "envelope is a JSON array", armorJSON(`[1]`), false),
	}
}

// oversized is a signature, valid in every other respect, whose envelope is
// one byte over MaxJSON, grown by true owner conditions.
func oversized(t testing.TB, b vecBase) string {
	t.Helper()
	need := MaxJSON + 1 - len(b.oaJSON) // conditions length
	k := (need - 12) / 7                // "kind=1&" clauses, then created_at>1 with d-1 zeros
	d := need - 7*k - len("created_at>")
	cond := strings.Repeat("kind=1&", k) + "created_at>1" + strings.Repeat("0", d-1)
	s := forceSign(t, b.signer, vecPayload, vecTime, attest(t, b.owner, b.signer.PublicKey(), cond))
	if len(unarmorLoose(s)) != MaxJSON+1 {
		t.Fatalf("oversized envelope is %d bytes", len(unarmorLoose(s)))
	}
	return s
}

// unarmorLoose decodes without the size limit.
func unarmorLoose(armored string) string {
	js, _ := base64.StdEncoding.DecodeString(strings.Split(armored, "\n")[1])
	return string(js)
}

func jsonCases(t testing.TB, b vecBase) []caseSpec {
	j, pk := b.plainJSON, b.signer.PublicKey()
	sig := j[strings.Index(j, `"sig":"`)+7:][:128]
	body := strings.TrimPrefix(j, `{"v":1,`)
	return []caseSpec{
		errCase("json-whitespace", "a space after a colon", armorJSON(edit(t, j, `"v":1`, `"v": 1`)), true),
		errCase("json-key-order", "pk before v", armorJSON(`{"pk":"`+pk+`","v":1,`+body[len(`"pk":"`+pk+`",`):]), true),
		errCase("json-escaped-key", `key "v" spelled "\u0076"`, armorJSON(edit(t, j, `"v":1`, `"\u0076":1`)), true),
		errCase("json-trailing-space", "a space after the object", armorJSON(j+" "), true),
		errCase("json-trailing-data", "a second value after the object", armorJSON(j+"{}"), true),
		errCase("unknown-key", `an extra key "x"`, armorJSON(strings.TrimSuffix(j, "}")+`,"x":1}`), true),
		errCase("duplicate-key", "t twice", armorJSON(edit(t, j, `"t":1750000000`, `"t":1750000000,"t":1750000000`)), true),
		errCase("v-2", "unknown version", armorJSON(edit(t, j, `"v":1`, `"v":2`)), true),
		errCase("v-missing", "no v", armorJSON("{"+body), true),
		errCase("v-float", "v written as 1.0", armorJSON(edit(t, j, `"v":1`, `"v":1.0`)), true),
		errCase("pk-missing", "no pk", armorJSON(edit(t, j, `"pk":"`+pk+`",`, "")), false),
		errCase("pk-uppercase", "pk in upper-case hex", armorJSON(edit(t, j, pk, strings.ToUpper(pk))), false),
		errCase("pk-not-on-curve", "pk is not the x of a secp256k1 point", armorJSON(edit(t, j, pk, notOnCurve())), false),
		errCase("sig-short", "sig of 126 hex digits", armorJSON(edit(t, j, sig, sig[:126])), true),
		errCase("sig-uppercase", "sig in upper-case hex", armorJSON(edit(t, j, sig, strings.ToUpper(sig))), true),
		errCase("t-float", "t in exponent notation", armorJSON(edit(t, j, `"t":1750000000`, `"t":1.75e9`)), true),
		errCase("t-negative", "t below 0", armorJSON(edit(t, j, `"t":1750000000`, `"t":-1`)), true),
		errCase("t-too-large", "t above 4294967295", armorJSON(edit(t, j, `"t":1750000000`, `"t":4294967296`)), true),
		errCase("t-string", "t as a string", armorJSON(edit(t, j, `"t":1750000000`, `"t":"1750000000"`)), true),
		errCase("t-leading-zero", "t with a leading zero (invalid JSON)", armorJSON(edit(t, j, `"t":1750000000`, `"t":01750000000`)), true),
	}
}

func oaCases(t testing.TB, b vecBase) []caseSpec {
	j, pk := b.oaJSON, b.signer.PublicKey()
	owner := b.owner.PublicKey()
	oaStart := strings.Index(j, `,"oa":`)
	self := &Attestation{Owner: pk, Sig: attest(t, b.signer, pk, "").Sig}
	badCond := attest(t, b.owner, pk, "kind=01")
	return []caseSpec{
		errCase("oa-two-elements", "oa with 2 strings", armorJSON(j[:oaStart]+`,"oa":["`+owner+`",""]}`), true),
		errCase("oa-not-array", "oa is a string", armorJSON(j[:oaStart]+`,"oa":"`+owner+`"}`), true),
		errCase("oa-self-attestation", "oa[0] equals pk", forceSign(t, b.signer, vecPayload, vecTime, self), true),
		errCase("oa-owner-uppercase", "oa[0] in upper-case hex", armorJSON(edit(t, j, owner, strings.ToUpper(owner))), true),
		errCase("oa-conditions-malformed", "conditions kind=01 (leading zero)",
			forceSign(t, b.signer, vecPayload, vecTime, badCond), true),
		errCase("oa-sig-short", "oa[2] of 126 hex digits", armorJSON(j[:len(j)-5]+`"]}`), true),
	}
}
