// Package gitsig signs and verifies git commits and tags with Nostr keys, as
// NIP-GS v1 specifies (block/buzz, docs/nips/NIP-GS.md).
//
// Git talks to a signing program through the interface it uses for gpgsm
// (gpg.format=x509, gpg.x509.program=git-sign-nostr):
//
//	sign:   <program> --status-fd=2 -bsau <user.signingkey>   payload on stdin
//	verify: <program> --status-fd=1 --verify <sigfile> -       payload on stdin
//
// and reads the outcome from "[GNUPG:]" status lines, not from exit codes
// alone. [Run] is that program; [Sign] and [Verify] are the format under it.
//
// A signature is three lines of armor around the base64 of a compact JSON
// envelope:
//
//	-----BEGIN SIGNED MESSAGE-----
//	<base64 of {"v":1,"pk":"<hex>","sig":"<hex>","t":<unix>[,"oa":[...]]}>
//	-----END SIGNED MESSAGE-----
//
// where sig is a BIP-340 signature by pk over
// SHA-256("nostr:git:v1:" || t || ":" || oa binding || payload).
//
// The envelope is embedded in the commit object, so every byte of it is part
// of the commit hash. Verification is therefore strict: exactly one byte
// sequence is accepted for a given set of field values (canonical armor,
// canonical base64, canonical JSON), or else two commit hashes could carry
// the "same" valid signature.
package gitsig
