// Command git-sign-nostr signs and verifies git commits and tags with a Nostr
// key (NIP-GS v1). Point git at it:
//
//	git config gpg.format x509
//	git config gpg.x509.program git-sign-nostr
//	git config user.signingkey npub1…
//	git config nostr.keyfile ~/.config/nostr/key   # or set NOSTR_PRIVATE_KEY
//
// All the work is in package toolbus/signer/gitsig, so that `toolbus git
// sign` runs the same code.
package main

import (
	"os"

	"toolbus/signer/gitsig"
)

func main() {
	os.Exit(gitsig.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gitsig.OSStatusFD))
}
