package config

import (
	"path/filepath"
	"testing"
)

func TestApplyFlags(t *testing.T) {
	file := "listen = \"10.0.0.1:9000\"\ndata_dir = \"/srv/tb\"\n"
	tests := []struct {
		name            string
		flags           Flags
		listen, dataDir string
	}{
		{"no flags keep file", Flags{}, "10.0.0.1:9000", "/srv/tb"},
		{"listen flag", Flags{Listen: "127.0.0.1:1"}, "127.0.0.1:1", "/srv/tb"},
		{"data-dir flag", Flags{DataDir: "/tmp/x"}, "10.0.0.1:9000", "/tmp/x"},
		{"both", Flags{DataDir: "d", Listen: ":2"}, ":2", "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read(writeFile(t, t.TempDir(), "c.toml", file))
			if err != nil {
				t.Fatal(err)
			}
			c.ApplyFlags(tt.flags)
			if c.Listen != tt.listen || c.DataDir != tt.dataDir {
				t.Errorf("listen %q data_dir %q, want %q %q", c.Listen, c.DataDir, tt.listen, tt.dataDir)
			}
			if got, want := c.KeyFilePath(), filepath.Join(tt.dataDir, "relay.key"); got != want {
				t.Errorf("KeyFilePath() = %q, want %q", got, want)
			}
		})
	}
}

// TestFlagReplacesBadFileValue is why Read exists: a flag that fixes a bad
// value in the file must not be blocked by validating the file first.
func TestFlagReplacesBadFileValue(t *testing.T) {
	c, err := Read(writeFile(t, t.TempDir(), "c.toml", "listen = \"oops\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.ApplyFlags(Flags{Listen: "127.0.0.1:7000"})
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate after flag: %v", err)
	}
}
