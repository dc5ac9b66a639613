package tools

import (
	"os"
	"path/filepath"
	"strings"

	"toolbus/tools/fallback"
)

// defaultPath is used when the filtered environment has no PATH at all,
// so that a shell call still finds the usual programs.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// notableTools are the programs worth naming in the tool description when
// they are on PATH: knowing them saves the model a round of `which`.
var notableTools = []string{
	"git", "gh", "go", "gofmt", "node", "npm", "npx", "pnpm", "yarn", "bun",
	"deno", "tsc", "python3", "pip3", "uv", "pytest", "cargo", "rustc",
	"make", "cmake", "gcc", "clang", "java", "mvn", "gradle", "dotnet",
	"ruby", "php", "docker", "kubectl", "jq", "curl", "sqlite3", "psql",
	"fd", "rg", "tree",
}

// childEnv is the environment of a shell child: e.ShellEnv (already free
// of secrets) with PATH led by the private bin directory, and
// TOOLBUS_BIN_DIR telling the rg/tree stand-ins which PATH entry is
// themselves.
func childEnv(e *Env) []string {
	path := ""
	env := make([]string, 0, len(e.ShellEnv)+2)
	for _, kv := range e.ShellEnv {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			path = kv[len("PATH="):] // the last one wins, as in os/exec
		case strings.HasPrefix(kv, fallback.BinDirEnv+"="):
		default:
			env = append(env, kv)
		}
	}
	if path == "" {
		path = defaultPath
	}
	if e.BinDir != "" {
		if first, _, _ := strings.Cut(path, string(os.PathListSeparator)); first != e.BinDir {
			path = e.BinDir + string(os.PathListSeparator) + path
		}
		env = append(env, fallback.BinDirEnv+"="+e.BinDir)
	}
	return append(env, "PATH="+path)
}

// envPath returns the PATH of an environment list.
func envPath(env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// toolsOnPath returns the notable tools found on path, in list order.
func toolsOnPath(path string) []string {
	var found []string
	for _, name := range notableTools {
		if lookPath(name, path) {
			found = append(found, name)
		}
	}
	return found
}

// lookPath says whether an executable called name is on path; unlike
// exec.LookPath it searches the shell's PATH, not the server's.
func lookPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, name))
		if err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
