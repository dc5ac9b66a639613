package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name     string
		toml     string
		wantKeys []string
		wantLine int
	}{
		{"top level", "listen = \"127.0.0.1:1\"\nlisen = \"x\"\n", []string{"lisen"}, 2},
		{"nested", "[workspace]\nmode = \"open\"\nmemebers = []\n", []string{"workspace.memebers"}, 3},
		{"dotted", "workspace.memebers = []\n", []string{"workspace.memebers"}, 1},
		{"unknown section reported once", "\n[tool_bsu]\na = 1\nb = 2\n", []string{"tool_bsu"}, 2},
		{"after multi-line array", "[workspace]\nadmins = [\n  # x = 1\n]\nx = 1\n", []string{"workspace.x"}, 5},
		{"inline table has no line", "info = { nam = \"x\" }\n", []string{"info.nam"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.toml), "t.toml")
			if err == nil {
				t.Fatal("no error for unknown key")
			}
			if got := errKeys(err); !slices.Equal(got, tt.wantKeys) {
				t.Fatalf("keys %v, want %v (err %v)", got, tt.wantKeys, err)
			}
			if line := keyErrors(err)[0].Line; line != tt.wantLine {
				t.Errorf("line %d, want %d", line, tt.wantLine)
			}
			mustContain(t, err.Error(), "config: t.toml", tt.wantKeys[0], "unknown key")
		})
	}
}

func TestUnknownKeyMessage(t *testing.T) {
	_, err := Parse([]byte("[workspace]\nmemebers = []\n"), "w.toml")
	want := `config: w.toml:2: workspace.memebers: unknown key`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want prefix %q", err, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want []string
	}{
		{"syntax", "listen = \"a\"\n\nlog_level = \n", []string{"config: s.toml:3: invalid TOML"}},
		{"unterminated", "listen = \"a\n", []string{"config: s.toml:1: invalid TOML"}},
		{"type mismatch", "\nlisten = 7447\n", []string{"config: s.toml:2: listen: incompatible types"}},
		{"wrong type in section", "[limits]\nmax_filters = \"16\"\n", []string{"config: s.toml:2: limits.max_filters: incompatible types"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.toml), "s.toml")
			if err == nil {
				t.Fatal("no error")
			}
			mustContain(t, err.Error(), tt.want...)
		})
	}
}

func TestParseOverridesOnlyGivenKeys(t *testing.T) {
	c, err := Parse([]byte("log_level = \"debug\"\n[limits]\nevents_per_second = 5\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.LogLevel = "debug"
	want.Limits.EventsPerSecond = 5
	if !equalConfig(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.toml", "[workspace]\nmode = \"open\"\n")
	bad := writeFile(t, dir, "bad.toml", "\n\nlog_format = \"xml\"\n")
	if c, err := Load(good); err != nil || c.Workspace.Mode != ModeOpen {
		t.Errorf("Load(good) = %q, %v", c.Workspace.Mode, err)
	}
	_, err := Load(bad)
	if err == nil {
		t.Fatal("Load(bad) accepted log_format xml")
	}
	mustContain(t, err.Error(), bad+":3: log_format")
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("Load(missing) succeeded")
	}
}

func TestReadDoesNotValidate(t *testing.T) {
	path := writeFile(t, t.TempDir(), "c.toml", "log_format = \"xml\"\n")
	c, err := Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if c.LogFormat != "xml" {
		t.Errorf("log_format = %q", c.LogFormat)
	}
	if err := c.Validate(); err == nil {
		t.Error("Validate accepted log_format xml")
	}
	bad := writeFile(t, t.TempDir(), "u.toml", "nope = 1\n")
	if _, err := Read(bad); err == nil {
		t.Error("Read accepted an unknown key")
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
