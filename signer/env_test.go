package signer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTakeEnvUnsets(t *testing.T) {
	resetEnvStash(t)
	t.Setenv(EnvVar, vecHex)
	TakeEnv()
	if _, ok := os.LookupEnv(EnvVar); ok {
		t.Fatalf("%s still in the environment after TakeEnv", EnvVar)
	}
	TakeEnv() // idempotent: the stash survives a second call
	if v, _, ok := stashedEnv(); !ok || v != vecHex {
		t.Fatal("TakeEnv did not stash the value")
	}
	l, src, err := Load(LoadOptions{})
	if err != nil || src != SourceEnv || l.secretHex() != vecHex {
		t.Fatalf("Load = (%v, %q, %v), want the env key", l, src, err)
	}
}

func TestLoadTakesEnvItself(t *testing.T) {
	resetEnvStash(t)
	t.Setenv(EnvVar, vecNsec)
	l, src, err := Load(LoadOptions{})
	if err != nil || src != SourceEnv || l.secretHex() != vecHex {
		t.Fatalf("Load = (%v, %q, %v), want the env key", l, src, err)
	}
	if _, ok := os.LookupEnv(EnvVar); ok {
		t.Fatalf("Load left %s in the environment", EnvVar)
	}
}

func TestChildDoesNotInheritKey(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	resetEnvStash(t)
	t.Setenv(EnvVar, vecHex)
	TakeEnv()
	out, err := exec.Command(sh, "-c", `echo "${NOSTR_PRIVATE_KEY-unset}"; env`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != "unset" {
		t.Errorf("child saw %s", EnvVar)
	}
	if strings.Contains(string(out), EnvVar) || strings.Contains(string(out), vecHex) {
		t.Errorf("child environment contains the key")
	}
}

func TestLoadInvalidEnv(t *testing.T) {
	resetEnvStash(t)
	value := "  " + vecHex[:40] + "zz"
	t.Setenv(EnvVar, value)
	_, src, err := Load(LoadOptions{})
	if !errors.Is(err, ErrInvalidSecret) || src != SourceEnv {
		t.Fatalf("err = %v, src = %q; want ErrInvalidSecret from the env", err, src)
	}
	if msg := err.Error(); !strings.Contains(msg, EnvVar) || strings.Contains(msg, vecHex[:40]) {
		t.Errorf("error %q must name %s and not quote its value", msg, EnvVar)
	}
}

func TestLoadPrecedence(t *testing.T) {
	resetEnvStash(t)
	dir := t.TempDir()
	flagKey, envKey, cfgKey := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	flagFile := filepath.Join(dir, "flag.key")
	cfgFile := filepath.Join(dir, "config.key")
	for path, l := range map[string]*Local{flagFile: flagKey, cfgFile: cfgKey} {
		if err := WriteKeyFile(path, l); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvVar, envKey.NSec())
	tests := []struct {
		name    string
		opts    LoadOptions
		want    *Local
		wantSrc Source
	}{
		{"flag beats env and config", LoadOptions{KeyFile: flagFile, ConfigKeyFile: cfgFile}, flagKey, Source("--key-file " + flagFile)},
		{"env beats config", LoadOptions{ConfigKeyFile: cfgFile}, envKey, SourceEnv},
	}
	for _, tt := range tests {
		l, src, err := Load(tt.opts)
		if err != nil || l.PublicKey() != tt.want.PublicKey() || src != tt.wantSrc {
			t.Errorf("%s: Load = (%v, %q, %v), want (%v, %q)", tt.name, l, src, err, tt.want, tt.wantSrc)
		}
	}

	resetEnvStash(t) // env now gone: config is next
	l, src, err := Load(LoadOptions{ConfigKeyFile: cfgFile})
	if err != nil || l.PublicKey() != cfgKey.PublicKey() || src != Source("config key_file "+cfgFile) {
		t.Errorf("config: Load = (%v, %q, %v)", l, src, err)
	}
	if _, _, err := Load(LoadOptions{}); !errors.Is(err, ErrNoKey) {
		t.Errorf("no source: err = %v, want ErrNoKey", err)
	}
}

func TestLoadEmptyEnvIsUnset(t *testing.T) {
	resetEnvStash(t)
	t.Setenv(EnvVar, " ")
	if _, _, err := Load(LoadOptions{}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("err = %v, want ErrNoKey", err)
	}
}

// A broken source that was asked for must fail, not fall back to the next.
func TestLoadDoesNotFallBack(t *testing.T) {
	resetEnvStash(t)
	t.Setenv(EnvVar, vecHex)
	dir := t.TempDir()
	bad := writeKeyFile(t, dir, "bad.key", vecHex, 0o644)
	_, src, err := Load(LoadOptions{KeyFile: bad})
	if !errors.Is(err, ErrKeyFileMode) || !strings.HasPrefix(err.Error(), "--key-file: ") {
		t.Fatalf("err = %v, want ErrKeyFileMode prefixed by --key-file", err)
	}
	if src != Source("--key-file "+bad) {
		t.Errorf("src = %q", src)
	}
	resetEnvStash(t)
	t.Setenv(EnvVar, "")
	missing := filepath.Join(dir, "missing.key")
	_, _, err = Load(LoadOptions{ConfigKeyFile: missing})
	if !strings.HasPrefix(err.Error(), "config key_file: ") || !strings.Contains(err.Error(), "toolbus key new") {
		t.Fatalf("err = %v", err)
	}
}

// NIP-GS key loading: NOSTR_PRIVATE_KEY, then BUZZ_PRIVATE_KEY (also when
// NOSTR_PRIVATE_KEY is blank); both leave the environment either way.
func TestBuzzEnvIsSecondSource(t *testing.T) {
	other := mustGenerate(t)
	cases := []struct {
		name        string
		nostr, buzz *string
		want        string
		src         Source
	}{
		{"buzz only", nil, ptr(vecNsec), vecHex, SourceBuzzEnv},
		{"blank nostr", ptr("  "), ptr(vecHex), vecHex, SourceBuzzEnv},
		{"nostr first", ptr(other.secretHex()), ptr(vecHex), other.secretHex(), SourceEnv},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resetEnvStash(t)
			for name, v := range map[string]*string{EnvVar: c.nostr, BuzzEnvVar: c.buzz} {
				if v != nil {
					t.Setenv(name, *v)
				}
			}
			l, src, err := Load(LoadOptions{})
			if err != nil || src != c.src || l.secretHex() != c.want {
				t.Fatalf("Load = (%v, %q, %v), want the key from %s", l, src, err, c.src)
			}
			for _, name := range []string{EnvVar, BuzzEnvVar} {
				if _, ok := os.LookupEnv(name); ok {
					t.Errorf("%s still in the environment after Load", name)
				}
			}
		})
	}

	// A NOSTR_PRIVATE_KEY that arrives after a stashed BUZZ_PRIVATE_KEY
	// still wins; a broken BUZZ_PRIVATE_KEY is an error, not a fallback to
	// the key file.
	resetEnvStash(t)
	t.Setenv(BuzzEnvVar, vecHex)
	TakeEnv()
	t.Setenv(EnvVar, other.secretHex())
	if l, _, err := Load(LoadOptions{}); err != nil || l.secretHex() != other.secretHex() {
		t.Fatalf("NOSTR_PRIVATE_KEY after BUZZ_PRIVATE_KEY: %v, %v", l, err)
	}
	resetEnvStash(t)
	t.Setenv(BuzzEnvVar, "nsec1broken")
	cfg := writeKeyFileT(t, other)
	_, src, err := Load(LoadOptions{ConfigKeyFile: cfg})
	if !errors.Is(err, ErrInvalidSecret) || src != SourceBuzzEnv || !strings.HasPrefix(err.Error(), BuzzEnvVar+":") {
		t.Fatalf("broken BUZZ_PRIVATE_KEY: src %q, err = %v; want ErrInvalidSecret naming %s", src, err, BuzzEnvVar)
	}
}

func TestChildDoesNotInheritBuzzKey(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	resetEnvStash(t)
	t.Setenv(BuzzEnvVar, vecHex)
	TakeEnv()
	out, err := exec.Command(sh, "-c", "env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), BuzzEnvVar) || strings.Contains(string(out), vecHex) {
		t.Errorf("child environment contains the key")
	}
}

func ptr(s string) *string { return &s }

func writeKeyFileT(t *testing.T, l *Local) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "k")
	if err := WriteKeyFile(path, l); err != nil {
		t.Fatal(err)
	}
	return path
}
