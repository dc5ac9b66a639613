package gitcred

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"toolbus/signer"
)

// KeyFileConfig is the git config key naming the key file used when
// neither NOSTR_PRIVATE_KEY nor BUZZ_PRIVATE_KEY is set.
const KeyFileConfig = "nostr.keyfile"

// loadKey returns the key to sign with: NOSTR_PRIVATE_KEY if set, else
// BUZZ_PRIVATE_KEY (the NIP-GS order, see signer.BuzzEnvVar), else the
// file named by `git config nostr.keyfile` (read in the helper's working
// directory, which git sets to the repository, so a per-repository key
// works). The file must be mode 0600 or stricter.
func loadKey() (*signer.Local, error) {
	key, _, err := signer.Load(signer.LoadOptions{})
	if !errors.Is(err, signer.ErrNoKey) {
		return key, err
	}
	path, err := gitConfigPath(KeyFileConfig)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("no key: set %s or run: git config --global %s /path/to/key (mode 0600)",
			signer.EnvVar, KeyFileConfig)
	}
	key, _, err = signer.Load(signer.LoadOptions{ConfigKeyFile: path})
	return key, err
}

// gitConfigPath reads a path-valued git config key ("~/" expanded by git),
// returning "" when it is unset.
func gitConfigPath(key string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--type=path", "--get", key)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
		return "", nil // git config's "not set"
	}
	if err != nil {
		return "", fmt.Errorf("git config %s: %v %s", key, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
