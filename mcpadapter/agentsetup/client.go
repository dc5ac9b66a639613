// Package agentsetup builds the MCP client configuration that points a local
// coding agent (Claude Code, Cursor, Codex or any MCP client) at `toolbus mcp`,
// prints it with a trial prompt, and, only when asked, writes toolbus's own
// entry into the client's config file without touching anything else.
//
// The entry carries the key file's path, never a key: the package does not
// read the key file at all, it only stats it to check that it exists and is
// private.
package agentsetup

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Client names an MCP client whose config format agent-setup knows.
type Client string

// The supported clients.
const (
	ClaudeCode Client = "claude-code"
	Cursor     Client = "cursor"
	Codex      Client = "codex"
	Generic    Client = "generic"
)

// Clients lists the supported clients in the order help texts show them.
var Clients = []Client{ClaudeCode, Cursor, Codex, Generic}

// DefaultRelay is the relay a local `toolbus up` listens on.
const DefaultRelay = "ws://127.0.0.1:7447"

// DefaultName is the entry name under mcpServers / mcp_servers.
const DefaultName = "toolbus"

// ParseClient accepts a client name as typed on the command line.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients {
		if strings.EqualFold(s, string(c)) {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown client %q (want %s)", s, clientList())
}

func clientList() string {
	names := make([]string, len(Clients))
	for i, c := range Clients {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Options describe the one MCP server entry agent-setup produces.
type Options struct {
	Client  Client
	Name    string // entry name, DefaultName if empty
	Command string // toolbus binary: an absolute path, or a bare name looked up on PATH
	Relay   string // relay websocket URL
	KeyFile string // absolute path of the key file; its content is never read
}

// namePattern keeps entry names to what is a bare TOML key, a plain JSON
// key and a shell word at once, so no client format needs quoting rules.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate checks o and fills in the default name.
func (o *Options) Validate() error {
	if _, err := ParseClient(string(o.Client)); err != nil {
		return err
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if !namePattern.MatchString(o.Name) {
		return fmt.Errorf("entry name %q: use 1-64 letters, digits, '-' or '_'", o.Name)
	}
	if o.Command == "" {
		return errors.New("no toolbus command")
	}
	if !filepath.IsAbs(o.KeyFile) {
		// A relative path would resolve against whatever directory the
		// client starts the server in, which is rarely the one meant here.
		return fmt.Errorf("key file %q must be an absolute path", o.KeyFile)
	}
	return checkRelay(o.Relay)
}

// checkRelay accepts ws:// and wss:// URLs without credentials: userinfo in
// the URL would put a secret into the config.
func checkRelay(relay string) error {
	u, err := url.Parse(relay)
	if err != nil {
		return fmt.Errorf("relay URL: %w", err)
	}
	if (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("relay URL %q: want ws://HOST[:PORT] or wss://HOST", relay)
	}
	if u.User != nil {
		return errors.New("relay URL must not carry a user or password: it would end up in the client's config")
	}
	return nil
}

// Args are the arguments the client passes to the toolbus binary.
func (o Options) Args() []string {
	return []string{"mcp", "--relay", o.Relay, "--key-file", o.KeyFile}
}

// AbsPath makes a user-typed path absolute, expanding a leading "~/" that a
// shell leaves alone in "--key-file=~/key".
func AbsPath(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return filepath.Abs(p)
}

// DefaultConfigPath is the file --write edits for c when --config is not
// given. Generic clients have no standard file.
func DefaultConfigPath(c Client) (string, error) {
	switch c {
	case ClaudeCode:
		// Project scope: ~/.claude.json is Claude Code's own busy state
		// file, which it rewrites while running; `claude mcp add` is the
		// safe way to reach user scope.
		root, err := projectRoot()
		return filepath.Join(root, ".mcp.json"), err
	case Cursor:
		home, err := os.UserHomeDir()
		return filepath.Join(home, ".cursor", "mcp.json"), err
	case Codex:
		if dir := os.Getenv("CODEX_HOME"); dir != "" {
			return filepath.Join(dir, "config.toml"), nil
		}
		home, err := os.UserHomeDir()
		return filepath.Join(home, ".codex", "config.toml"), err
	}
	return "", fmt.Errorf("client %s has no standard config file: pass --config FILE", c)
}

// projectRoot is the nearest directory at or above the working directory
// holding .git, where Claude Code looks for .mcp.json; without one it is
// the working directory.
func projectRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd, nil
		}
		dir = parent
	}
}
