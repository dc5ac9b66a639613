package main

import (
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"toolbus/signer"
)

// gitSetup configures one checkout (never the global config) to push to a
// toolbus relay with NIP-98 and to sign commits and tags with NIP-GS.
func gitSetup(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus git setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "the checkout to configure")
	remote := fs.String("remote", "", "set origin to this URL (http(s)://relay/git/<npub>/<repo>.git)")
	keyFile := fs.String("key-file", defaultKeyFile(), "your key file (0600); git finds it through nostr.keyfile")
	name := fs.String("name", "", "user.name for commits (default: your npub)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	abs, err := filepath.Abs(*keyFile)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	key, err := signer.ReadKeyFile(abs)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	cred, sign, err := helperLinks(filepath.Join(filepath.Dir(defaultKeyFile()), "bin"))
	if err != nil {
		return fail(stderr, "git helpers: %v", err)
	}
	if *name == "" {
		*name = key.NPub()
	}
	steps := gitSetupSteps(cred, sign, abs, key.NPub(), *name)
	if *remote != "" {
		steps = append(steps, remoteStep(*dir, *remote))
	}
	for _, s := range steps {
		if out, err := gitIn(*dir, s...); err != nil {
			return fail(stderr, "git %s: %v: %s", strings.Join(s, " "), err, strings.TrimSpace(out))
		}
	}
	fmt.Fprintf(stdout, "configured %s: pushes authenticate as %s (NIP-98), commits and tags are signed (NIP-GS)\n", *dir, key.NPub())
	return 0
}

// gitSetupSteps are the local config writes. The credential helper list is
// reset first, so another helper configured globally cannot answer for the
// relay with a stale password.
func gitSetupSteps(cred, sign, keyFile, npub, name string) [][]string {
	return [][]string{
		{"config", "--local", "--unset-all", "credential.helper"},
		{"config", "--local", "--add", "credential.helper", ""},
		{"config", "--local", "--add", "credential.helper", cred},
		{"config", "--local", "credential.useHttpPath", "true"},
		{"config", "--local", "gpg.format", "x509"},
		{"config", "--local", "gpg.x509.program", sign},
		{"config", "--local", "commit.gpgSign", "true"},
		{"config", "--local", "tag.gpgSign", "true"},
		{"config", "--local", "user.signingkey", npub},
		{"config", "--local", "user.name", name},
		{"config", "--local", "nostr.keyfile", keyFile},
	}
}

func remoteStep(dir, url string) []string {
	if _, err := gitIn(dir, "remote", "get-url", "origin"); err == nil {
		return []string{"remote", "set-url", "origin", url}
	}
	return []string{"remote", "add", "origin", url}
}

// gitIn runs git in dir; --unset-all of an absent key is not an error.
func gitIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && len(args) > 2 && args[2] == "--unset-all" && ee.ExitCode() == 5 {
		return string(out), nil
	}
	return string(out), err
}
