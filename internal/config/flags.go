package config

// Flags are command-line values that override the file. An empty field
// means the flag was not given and leaves the file's value alone.
type Flags struct {
	// DataDir is --data-dir.
	DataDir string
	// Listen is --listen.
	Listen string
}

// ApplyFlags overrides the configuration with the non-empty flags. Call it
// after Read and before Validate, so that a bad value the flag replaces is
// never reported. An empty KeyFile keeps following DataDir.
func (c *Config) ApplyFlags(f Flags) {
	if f.DataDir != "" {
		c.DataDir = f.DataDir
	}
	if f.Listen != "" {
		c.Listen = f.Listen
	}
}
