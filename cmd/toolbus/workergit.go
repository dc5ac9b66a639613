package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"toolbus/signer"
)

// workerGitEnv gives the worker's shell children a git identity: commits
// and tags signed with the worker's key (NIP-GS), pushes to the relay
// authenticated as the worker (NIP-98). It is process-scoped git config
// (GIT_CONFIG_COUNT/KEY_n/VALUE_n, appended after any the parent had), so
// no file of the user's is touched. The helpers find the key through a
// 0600 key file in the worker's private session directory, never through
// the child's environment.
func workerGitEnv(sessionDir string, key *signer.Local, relayURL, name string) ([]string, error) {
	keyFile := filepath.Join(sessionDir, "git.key")
	if err := signer.WriteKeyFile(keyFile, key); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("worker git key: %w", err)
	}
	cred, sign, err := helperLinks(filepath.Join(sessionDir, "git-bin"))
	if err != nil {
		return nil, fmt.Errorf("worker git helpers: %w", err)
	}
	host := "relay"
	if u, err := url.Parse(relayURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	if name == "" {
		name = key.NPub()
	}
	pairs := [][2]string{
		{"credential.helper", ""}, // reset: no other helper answers for the relay
		{"credential.helper", cred},
		{"credential.useHttpPath", "true"},
		{"gpg.format", "x509"},
		{"gpg.x509.program", sign},
		{"commit.gpgSign", "true"},
		{"tag.gpgSign", "true"},
		{"user.signingkey", key.PublicKey()},
		{"user.email", key.PublicKey() + "@" + host},
		{"user.name", name},
		{"nostr.keyfile", keyFile},
	}
	return gitConfigEnv(os.Getenv("GIT_CONFIG_COUNT"), pairs), nil
}

// gitConfigEnv numbers pairs after the parent's existing entries.
func gitConfigEnv(parentCount string, pairs [][2]string) []string {
	base, _ := strconv.Atoi(parentCount)
	if base < 0 {
		base = 0
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(base+len(pairs))}
	for i, p := range pairs {
		n := strconv.Itoa(base + i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+p[0], "GIT_CONFIG_VALUE_"+n+"="+p[1])
	}
	return env
}
