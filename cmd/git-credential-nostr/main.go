// Command git-credential-nostr is a git credential helper that signs a
// NIP-98 token for toolbus git hosting. Configure it with
//
//	git config --global credential.helper nostr
//	git config --global credential.useHttpPath true
//
// and give it a key in NOSTR_PRIVATE_KEY or `git config nostr.keyfile`.
// See package toolbus/gitbridge/gitcred.
package main

import (
	"os"

	"toolbus/gitbridge/gitcred"
	"toolbus/signer"
)

func main() {
	// Take the key out of the environment before anything could start a
	// child process (the helper runs `git config`).
	signer.TakeEnv()
	os.Exit(gitcred.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
