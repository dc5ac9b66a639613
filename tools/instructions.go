package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// stackMarkers maps a file in the working directory to the stack it means,
// in order of precedence.
var stackMarkers = []struct{ file, stack string }{
	{"Cargo.toml", "rust (cargo)"},
	{"package.json", "node"},
	{"go.mod", "go"},
	{"pyproject.toml", "python"},
	{"requirements.txt", "python"},
	{"Gemfile", "ruby"},
	{"pom.xml", "java"},
	{"build.gradle", "java"},
	{"build.gradle.kts", "java"},
}

// DetectStack names the project type of dir from its marker files.
func DetectStack(dir string) string {
	for _, m := range stackMarkers {
		if _, err := os.Stat(filepath.Join(dir, m.file)); err == nil {
			return m.stack
		}
	}
	return "unknown"
}

// instructions is the server's MCP instructions: what the model should
// know before its first call.
func instructions(e *Env) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Working directory: %s\n", e.Workdir)
	fmt.Fprintf(&b, "Detected stack: %s\n", DetectStack(e.Workdir))
	fmt.Fprintf(&b, "Shell: %s\n", e.Shell)
	b.WriteString("Pass workdir per call rather than cd: every shell call starts a fresh shell.\n")
	if e.Confine {
		b.WriteString("File tools are confined to the working directory.\n")
	}
	b.WriteString("Use read_file and str_replace for files, rg to search, and todo to keep a plan.")
	return b.String()
}
