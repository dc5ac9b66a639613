package gitsig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"toolbus/signer"
)

// signingKeyKey is the git config key whose public key earns TRUST_FULLY.
const signingKeyKey = "user.signingkey"

// verify checks the signature file against the payload and reports in gpg
// status lines (for git's parser) and on stderr (for the human reading
// `git log --show-signature`, which prints stderr verbatim).
func (c *cli) verify() int {
	armored, err := readSignatureFile(c.opts.files[0])
	if err != nil {
		return c.errsig(malformed("", err.Error()))
	}
	// The envelope is checked before the payload is read, so a malformed
	// signature costs nothing however large the commit.
	env, err := parseArmored(armored)
	if err != nil {
		return c.errsig(classify(err))
	}
	payload, closePayload, err := c.payload()
	if err != nil {
		return c.errsig(malformed(env.pk, err.Error()))
	}
	defer closePayload()
	sig, err := env.verify(payload)
	if err != nil {
		ve := classify(err)
		if errors.Is(ve, ErrBadSignature) {
			return c.badsig(ve)
		}
		return c.errsig(ve)
	}
	return c.goodsig(sig)
}

// readSignatureFile reads at most one byte more than any valid signature.
func readSignatureFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open signature file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(maxArmored)+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read signature file: %w", err)
	}
	return b, nil
}

// payload is stdin, or the file named after the signature file ("-" is
// stdin, as for gpg).
func (c *cli) payload() (io.Reader, func(), error) {
	if len(c.opts.files) < 2 || c.opts.files[1] == "-" {
		return c.stdin, func() {}, nil
	}
	f, err := os.Open(c.opts.files[1])
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open payload: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// errsig reports a signature that could not be processed. ERRSIG's fields
// after the key id are gpg's placeholders (algorithms, class, time) and
// rc 9, "no public key", gpg's generic can't-check code.
func (c *cli) errsig(ve *VerifyError) int {
	c.statusf("ERRSIG %s 0 0 00 0 9", keyID(ve.PubKey))
	c.warnf("cannot check signature: %s", ve.Reason)
	return 1
}

// badsig reports a well-formed signature that does not match the payload.
// NEWSIG opens the report of one signature, as gpg does.
func (c *cli) badsig(ve *VerifyError) int {
	c.statusf("NEWSIG")
	c.statusf("BADSIG %s %s", ve.PubKey, ve.PubKey)
	c.warnf("BAD signature from %s (%s): %s", signer.EncodeNPub(ve.PubKey), ve.PubKey, ve.Reason)
	return 1
}

// goodsig reports a valid signature. NEWSIG must come first: git counts a
// signature as good only if "\n[GNUPG:] GOODSIG " occurs, newline included.
// GOODSIG carries key id and user id
// (git's %GK and %GS), VALIDSIG the fingerprint, date, time and, ninth
// field on, the primary key fingerprint (git's %GF and %GP); the dashes
// fill gpg's fields that have no Nostr meaning.
func (c *cli) goodsig(sig *Signature) int {
	pk := sig.PubKey
	trust := "UNDEFINED"
	if c.trusted(sig) {
		trust = "FULLY"
	}
	c.statusf("NEWSIG")
	c.statusf("GOODSIG %s %s", pk, pk)
	c.statusf("VALIDSIG %s %s %d 0 - - - - - %s", pk, sig.Time.Format("2006-01-02"), sig.Time.Unix(), pk)
	c.statusf("TRUST_%s 0 shell", trust)
	c.describe(sig, trust == "FULLY")
	return 0
}

// trusted reports whether the signer is the key in user.signingkey, and no
// failed owner attestation makes a false claim about it. TRUST_FULLY means
// only "this is the locally configured key", not a verdict about strangers.
func (c *cli) trusted(sig *Signature) bool {
	want := strings.TrimSpace(c.config(signingKeyKey))
	if want == "" || strings.HasPrefix(strings.ToLower(want), "nsec1") {
		return false
	}
	pk, err := signer.ParsePubKey(want)
	return err == nil && pk == sig.PubKey && (sig.Owner == nil || sig.Owner.Err == nil)
}

// describe tells the human who signed, when, and what that is worth.
func (c *cli) describe(sig *Signature, trusted bool) {
	c.warnf("Good signature from %s (%s)", signer.EncodeNPub(sig.PubKey), sig.PubKey)
	c.warnf("Signed %s (time claimed by the signer)", sig.Time.Format("2006-01-02 15:04:05 UTC"))
	if o := sig.Owner; o != nil {
		if o.Err == nil {
			c.warnf("Authorized by owner %s (NIP-OA attestation; the owner did not sign this commit)", signer.EncodeNPub(o.PubKey))
		} else {
			c.warnf("WARNING: owner attestation by %s is not valid: %v", signer.EncodeNPub(o.PubKey), o.Err)
		}
	}
	if trusted {
		c.warnf("This is the key in user.signingkey")
	} else {
		c.warnf("WARNING: this key is not user.signingkey; the signature is valid, but nothing here vouches for whose key it is")
	}
}
