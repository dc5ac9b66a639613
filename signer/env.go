package signer

import (
	"os"
	"strings"
	"sync"
)

// EnvVar is the environment variable a secret key may be passed in.
const EnvVar = "NOSTR_PRIVATE_KEY"

// BuzzEnvVar is the second environment variable a secret key may be passed
// in, used only when EnvVar is unset or blank: NIP-GS (block/buzz) has
// git-sign-nostr read NOSTR_PRIVATE_KEY, then BUZZ_PRIVATE_KEY, then the
// nostr.keyfile git config. Load names whichever it used (SourceEnv or
// SourceBuzzEnv) in its result and errors.
const BuzzEnvVar = "BUZZ_PRIVATE_KEY"

// envStash holds the value TakeEnv moved out of the environment.
//
// The environment is inherited by every child process (git, editors, MCP
// servers, tool workers), so a key left there would leak to code toolbus
// runs but does not control. Moving it into package memory keeps it usable
// by Load and invisible to children. Load reads the stash without clearing
// it so that repeated loads in one process agree on the identity; clearing
// would gain nothing, since a Go string cannot be wiped.
var envStash struct {
	mu    sync.Mutex
	value string
	// fromBuzz records that value came from BuzzEnvVar, so a later
	// NOSTR_PRIVATE_KEY still takes precedence and a later BUZZ_PRIVATE_KEY
	// still replaces it.
	fromBuzz bool
}

// TakeEnv moves NOSTR_PRIVATE_KEY and BUZZ_PRIVATE_KEY from the process
// environment into package memory and unsets both, so no child process
// started afterwards inherits either. The stash holds NOSTR_PRIVATE_KEY, or
// BUZZ_PRIVATE_KEY when NOSTR_PRIVATE_KEY is unset or blank. The CLI calls
// it first thing in main, before anything can spawn a child; Load calls it
// too, in case main did not. It is idempotent: once the variables are gone,
// further calls keep the stashed value.
//
// It cannot scrub the copy the kernel keeps of the initial environment
// (/proc/PID/environ, readable by the same user); a key file avoids that.
func TakeEnv() {
	envStash.mu.Lock()
	defer envStash.mu.Unlock()
	if v, ok := os.LookupEnv(EnvVar); ok {
		envStash.value, envStash.fromBuzz = v, false
		// Unsetenv fails only for malformed names; EnvVar is a constant.
		_ = os.Unsetenv(EnvVar)
	}
	if v, ok := os.LookupEnv(BuzzEnvVar); ok {
		if envStash.fromBuzz || strings.TrimSpace(envStash.value) == "" {
			envStash.value, envStash.fromBuzz = v, true
		}
		_ = os.Unsetenv(BuzzEnvVar)
	}
}

// stashedEnv returns the stashed value and the variable it came from.
// Empty or blank counts as unset, matching the shell habit of
// `export NOSTR_PRIVATE_KEY=` to clear it.
func stashedEnv() (value, name string, ok bool) {
	envStash.mu.Lock()
	defer envStash.mu.Unlock()
	name = EnvVar
	if envStash.fromBuzz {
		name = BuzzEnvVar
	}
	return envStash.value, name, strings.TrimSpace(envStash.value) != ""
}
