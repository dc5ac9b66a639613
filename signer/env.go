package signer

import (
	"os"
	"strings"
	"sync"
)

// EnvVar is the environment variable a secret key may be passed in.
const EnvVar = "NOSTR_PRIVATE_KEY"

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
}

// TakeEnv moves NOSTR_PRIVATE_KEY from the process environment into package
// memory and unsets it, so no child process started afterwards inherits it.
// The CLI calls it first thing in main, before anything can spawn a child;
// Load calls it too, in case main did not. It is idempotent: once the
// variable is gone, further calls keep the stashed value.
//
// It cannot scrub the copy the kernel keeps of the initial environment
// (/proc/PID/environ, readable by the same user); a key file avoids that.
func TakeEnv() {
	envStash.mu.Lock()
	defer envStash.mu.Unlock()
	if v, ok := os.LookupEnv(EnvVar); ok {
		envStash.value = v
		// Unsetenv fails only for malformed names; EnvVar is a constant.
		_ = os.Unsetenv(EnvVar)
	}
}

// stashedEnv returns the stashed value. Empty or blank counts as unset,
// matching the shell habit of `export NOSTR_PRIVATE_KEY=` to clear it.
func stashedEnv() (string, bool) {
	envStash.mu.Lock()
	defer envStash.mu.Unlock()
	return envStash.value, strings.TrimSpace(envStash.value) != ""
}
