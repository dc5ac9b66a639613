package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"toolbus/signer"
)

func init() {
	register("key", "create or show a Nostr key (key new | key show)", runKey)
}

func runKey(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: toolbus key new [--out FILE] | toolbus key show [--key-file FILE] [--secret]")
		return 2
	}
	switch args[0] {
	case "new":
		return keyNew(args[1:], stdout, stderr)
	case "show":
		return keyShow(args[1:], stdout, stderr)
	default:
		return fail(stderr, "unknown key command %q (want new or show)", args[0])
	}
}

// keyNew writes a fresh key to a 0600 file, refusing to overwrite one. The
// secret is never printed: on a terminal it would end up in scrollback.
func keyNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus key new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", defaultKeyFile(), "write the new key to this file (created 0600, never overwritten)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key, err := signer.Generate()
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if err := signer.WriteKeyFile(*out, key); err != nil {
		return fail(stderr, "%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (mode 0600)\nnpub:   %s\npubkey: %s\n", *out, key.NPub(), key.PublicKey())
	return 0
}

// keyShow prints the public key of the loaded identity.
func keyShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus key show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyFile := fs.String("key-file", "", "key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	secret := fs.Bool("secret", false, "also print the secret key (nsec)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key, src, err := loadUserKey(*keyFile, "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	fmt.Fprintf(stdout, "npub:   %s\npubkey: %s\nsource: %s\n", key.NPub(), key.PublicKey(), src)
	if *secret {
		fmt.Fprintf(stdout, "nsec:   %s\n", key.NSec())
	}
	return 0
}

// defaultKeyFile is where a user's own key lives when no flag, environment
// variable or config names one: $XDG_CONFIG_HOME/toolbus/key.
func defaultKeyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "toolbus.key"
	}
	return filepath.Join(dir, "toolbus", "key")
}

// loadUserKey loads the caller's identity: --key-file, NOSTR_PRIVATE_KEY,
// the config's key_file, then the default key file.
func loadUserKey(flagFile, configFile string) (*signer.Local, signer.Source, error) {
	if configFile == "" {
		configFile = defaultKeyFile()
	}
	return signer.Load(signer.LoadOptions{KeyFile: flagFile, ConfigKeyFile: configFile})
}
