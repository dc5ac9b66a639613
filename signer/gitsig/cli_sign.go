package gitsig

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"toolbus/signer"
)

// keyfileKey is the git config key naming the signing key file.
const keyfileKey = "nostr.keyfile"

var errNoKey = errors.New("no signing key: set NOSTR_PRIVATE_KEY (or BUZZ_PRIVATE_KEY), or run: git config nostr.keyfile PATH (a file of mode 0600 holding an nsec1… or hex key)")

// sign reads the payload from stdin and writes the armored signature to
// stdout. Nothing reaches stdout unless signing succeeded: git would take
// any output as the signature.
func (c *cli) sign(ctx context.Context) int {
	s, err := c.load(c.config(keyfileKey))
	if err != nil {
		c.warnf("%v", err)
		return 1
	}
	if err := checkUser(c.opts.user, s.PublicKey()); err != nil {
		c.warnf("%v", err)
		return 1
	}
	t := c.now().Unix()
	c.statusf("BEGIN_SIGNING")
	out, err := signReader(ctx, s, c.stdin, t, nil)
	if err != nil {
		c.warnf("cannot sign: %v", err)
		return 1
	}
	if _, err := c.stdout.Write(out); err != nil {
		c.warnf("write signature: %v", err)
		return 1
	}
	// "D 8 1 00" fill the fields git's parser skips (detached, SHA-256,
	// algorithm, class); git only looks for the SIG_CREATED keyword.
	c.statusf("SIG_CREATED D 8 1 00 %d %s", t, s.PublicKey())
	return 0
}

// loadKey loads the secret key: NOSTR_PRIVATE_KEY or BUZZ_PRIVATE_KEY first, then keyFile
// (nostr.keyfile), which must be mode 0600 or stricter.
func loadKey(keyFile string) (signer.Signer, error) {
	l, _, err := signer.Load(signer.LoadOptions{ConfigKeyFile: keyFile})
	switch {
	case errors.Is(err, signer.ErrNoKey):
		return nil, errNoKey
	case err != nil:
		return nil, err
	}
	return l, nil
}

// checkUser refuses to sign when -u (user.signingkey) names another key
// than the loaded one, so a misconfigured repository fails loudly instead
// of carrying commits signed by an unexpected identity.
//
// git passes "Name <email>" when user.signingkey is unset, so only a value
// that looks like a key is compared. The value itself is never printed: a
// secret key pasted into user.signingkey by mistake must not be echoed.
func checkUser(user, pk string) error {
	u := strings.TrimSpace(user)
	switch {
	case strings.HasPrefix(strings.ToLower(u), "nsec1"):
		return errors.New("user.signingkey (-u) holds a secret key; set it to the public key (npub1… or hex) and treat that secret as leaked")
	case !looksLikePubKey(u):
		return nil
	}
	want, err := signer.ParsePubKey(u)
	if err != nil {
		return errors.New("-u (user.signingkey) looks like a public key but is not a valid npub1… or 64-hex key")
	}
	if want != pk {
		return fmt.Errorf("-u (user.signingkey) names a different key than the loaded one (%s); refusing to sign as the wrong identity", signer.EncodeNPub(pk))
	}
	return nil
}

// looksLikePubKey reports whether s is meant as a public key: npub1… or 64
// hex characters of either case.
func looksLikePubKey(s string) bool {
	if strings.HasPrefix(strings.ToLower(s), "npub1") {
		return true
	}
	return signer.IsLowerHex(strings.ToLower(s), 64)
}
