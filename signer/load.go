package signer

import "fmt"

// Source says where a loaded key came from, for logs and error messages,
// e.g. "--key-file /path", "NOSTR_PRIVATE_KEY", "config key_file /path".
// It never contains key material.
type Source string

// SourceEnv is the Source of a key taken from NOSTR_PRIVATE_KEY.
const SourceEnv = Source(EnvVar)

// SourceBuzzEnv is the Source of a key taken from BUZZ_PRIVATE_KEY.
const SourceBuzzEnv = Source(BuzzEnvVar)

// Labels of the key file sources; a Source is the label and the path.
const (
	flagLabel   = "--key-file"
	configLabel = "config key_file"
)

// LoadOptions are the key sources a command was given besides the
// environment.
type LoadOptions struct {
	// KeyFile is the --key-file flag; empty when not given.
	KeyFile string
	// ConfigKeyFile is the config's key_file; empty when not set.
	ConfigKeyFile string
}

// Load finds the key a command should use, trying in order the --key-file
// flag, NOSTR_PRIVATE_KEY or else BUZZ_PRIVATE_KEY (via TakeEnv) and the
// config's key_file, and
// returns ErrNoKey when none is set. The first source that is set decides:
// if it is broken, Load fails rather than fall back to the next, since the
// user asked for that key and silently signing as another would be worse.
func Load(opts LoadOptions) (*Local, Source, error) {
	TakeEnv()
	if opts.KeyFile != "" {
		return loadFile(flagLabel, opts.KeyFile)
	}
	if v, name, ok := stashedEnv(); ok {
		l, err := ParseSecret(v)
		if err != nil {
			// Name the variable, never its value.
			return nil, Source(name), fmt.Errorf("%s: %w", name, ErrInvalidSecret)
		}
		return l, Source(name), nil
	}
	if opts.ConfigKeyFile != "" {
		return loadFile(configLabel, opts.ConfigKeyFile)
	}
	return nil, "", ErrNoKey
}

// loadFile reads a key file on behalf of a labelled source; the label
// prefixes errors so the user knows which setting to fix.
func loadFile(label, path string) (*Local, Source, error) {
	src := Source(label + " " + path)
	l, err := ReadKeyFile(path)
	if err != nil {
		return nil, src, fmt.Errorf("%s: %w", label, err)
	}
	return l, src, nil
}
