package gitsig

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"toolbus/signer"
)

// Regenerate with: go test ./signer/gitsig -run TestVectors -update-gitsig-vectors
var updateVectors = flag.Bool("update-gitsig-vectors", false, "rewrite spec/vectors/nip-gs/vectors.json")

const vectorPath = "../../spec/vectors/nip-gs/vectors.json"

// vectorFile is the shape of spec/vectors/nip-gs/vectors.json; the README
// there documents every field.
type vectorFile struct {
	Description    string       `json:"description"`
	Warning        string       `json:"warning"`
	Keys           vectorKeys   `json:"keys"`
	Payload        string       `json:"payload"`
	T              int64        `json:"t"`
	SigningHash    string       `json:"signing_hash"`
	UserSigningKey string       `json:"user_signingkey"`
	Cases          []vectorCase `json:"cases"`
	Note           string       `json:"note"`
}

type vectorKeys struct {
	SignerSecret string `json:"signer_secret_key"`
	SignerPubKey string `json:"signer_pubkey"`
	SignerNPub   string `json:"signer_npub"`
	OwnerSecret  string `json:"owner_secret_key"`
	OwnerPubKey  string `json:"owner_pubkey"`
}

type vectorCase struct {
	Name      string   `json:"name"`
	Why       string   `json:"why"`
	Payload   *string  `json:"payload,omitempty"`
	Signature string   `json:"signature"`
	Expect    string   `json:"expect"`
	KeyID     string   `json:"key_id"`
	Owner     string   `json:"owner,omitempty"`
	Status    []string `json:"status"`
	Exit      int      `json:"exit"`
}

func buildVectors(t *testing.T) vectorFile {
	b := newVecBase(t)
	h, _ := signingHash(vecTime, nil, strings.NewReader(vecPayload))
	npub := signer.EncodeNPub(b.signer.PublicKey())
	f := vectorFile{
		Description: "NIP-GS v1 signatures of one git commit object, valid and not, with the gpg status lines git sees.",
		Warning:     "TEST-ONLY keys: their secrets are published here. Never use them for anything real.",
		Keys: vectorKeys{b.signer.secretHex(), b.signer.PublicKey(), npub,
			b.owner.secretHex(), b.owner.PublicKey()},
		Payload: vecPayload, T: vecTime, SigningHash: hex.EncodeToString(h[:]), UserSigningKey: npub,
		Note: "Signatures are BIP-340 with all-zero auxiliary randomness, so they are reproducible.",
	}
	var specs []caseSpec
	for _, group := range [][]caseSpec{validCases(t, b), badCases(t, b), armorCases(t, b), jsonCases(t, b), oaCases(t, b)} {
		specs = append(specs, group...)
	}
	for _, s := range specs {
		payload := vecPayload
		if s.payload != nil {
			payload = *s.payload
		}
		keyID := b.signer.PublicKey()
		if s.zeroKeyID {
			keyID = zeroKeyID
		}
		r := runCLI(cliEnv{config: map[string]string{signingKeyKey: npub}}, strings.NewReader(payload),
			"--status-fd=3", "--verify", writeTemp(t, s.signature), "-")
		f.Cases = append(f.Cases, vectorCase{Name: s.name, Why: s.why, Payload: s.payload,
			Signature: s.signature, Expect: s.expect, KeyID: keyID, Owner: s.owner,
			Status: strings.Split(strings.TrimSuffix(r.status, "\n"), "\n"), Exit: r.code})
	}
	return f
}

func TestVectors(t *testing.T) {
	want := buildVectors(t)
	if *updateVectors {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // keep "<" of e-mail addresses readable
		enc.SetIndent("", "  ")
		if err := enc.Encode(want); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(vectorPath)
	if err != nil {
		t.Fatal(err)
	}
	var got vectorFile
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	checkVectorKeys(t, got.Keys)
	for _, c := range got.Cases {
		t.Run(c.Name, func(t *testing.T) { checkCase(t, got, c) })
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("vectors.json differs from what the code produces; if the change is intended, rerun with -update-gitsig-vectors")
	}
}

func checkVectorKeys(t *testing.T, k vectorKeys) {
	for secret, pub := range map[string]string{k.SignerSecret: k.SignerPubKey, k.OwnerSecret: k.OwnerPubKey} {
		l, err := signer.ParseSecret(secret)
		if err != nil || l.PublicKey() != pub {
			t.Fatalf("vector secret does not derive %s", pub)
		}
	}
}

// checkCase checks a case against what it claims, independently of the
// generated status lines: the classification, the owner verdict, the key id
// git sees and the trust level.
func checkCase(t *testing.T, f vectorFile, c vectorCase) {
	payload := f.Payload
	if c.Payload != nil {
		payload = *c.Payload
	}
	sig, err := Verify([]byte(payload), []byte(c.Signature))
	if class := classOf(err); class != c.Expect {
		t.Fatalf("Verify says %s (%v), vector expects %s", class, err, c.Expect)
	}
	if c.Expect == "GOODSIG" {
		checkOwner(t, sig, c.Owner)
	}
	line := findStatus(c.Status, c.Expect)
	if fields := strings.Fields(line); len(fields) < 3 || fields[2] != c.KeyID {
		t.Fatalf("status %q does not name key id %s", line, c.KeyID)
	}
	wantTrust, wantExit := "", 1
	if c.Expect == "GOODSIG" {
		wantTrust, wantExit = "TRUST_FULLY", 0
		if c.Owner == "invalid" {
			wantTrust = "TRUST_UNDEFINED"
		}
	}
	if c.Exit != wantExit {
		t.Fatalf("exit %d, want %d", c.Exit, wantExit)
	}
	if trust := findStatus(c.Status, "TRUST_"); wantTrust != "" && trust != "[GNUPG:] "+wantTrust+" 0 shell" {
		t.Fatalf("trust line %q, want %s", trust, wantTrust)
	}
}

func checkOwner(t *testing.T, sig *Signature, want string) {
	switch {
	case want == "" && sig.Owner != nil,
		want == "valid" && (sig.Owner == nil || sig.Owner.Err != nil),
		want == "invalid" && (sig.Owner == nil || sig.Owner.Err == nil):
		t.Fatalf("owner %+v, vector expects %q", sig.Owner, want)
	}
}

func classOf(err error) string {
	switch {
	case err == nil:
		return "GOODSIG"
	case errors.Is(err, ErrBadSignature):
		return "BADSIG"
	case errors.Is(err, ErrMalformed):
		return "ERRSIG"
	}
	return "unclassified: " + err.Error()
}

// findStatus returns the first status line whose keyword starts with kw.
func findStatus(lines []string, kw string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "[GNUPG:] "+kw) {
			return l
		}
	}
	return ""
}
