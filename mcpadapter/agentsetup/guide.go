package agentsetup

import (
	"fmt"
	"io"
	"strings"
)

// clientGuide is what differs between clients in the printed instructions.
type clientGuide struct {
	title  string
	where  string // where the snippet goes
	reload string // how the client picks the entry up; %s is the entry name
}

var guides = map[Client]clientGuide{
	ClaudeCode: {
		title: "Claude Code",
		where: "Put this in .mcp.json at the root of your project (project scope; merge it into any\n" +
			"\"mcpServers\" already there). Claude Code asks you to approve project servers on first use.",
		reload: "Restart `claude` in the project; `/mcp` should list %s as connected.",
	},
	Cursor: {
		title: "Cursor",
		where: "Put this in ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project\n" +
			"(merge it into any \"mcpServers\" already there).",
		reload: "Reload Cursor; its MCP settings should show %s enabled, with tools.",
	},
	Codex: {
		title: "Codex CLI",
		where: "Add this table to ~/.codex/config.toml ($CODEX_HOME/config.toml if CODEX_HOME is set;\n" +
			".codex/config.toml for one trusted project).",
		reload: "Start `codex`; `/mcp` should list %s.",
	},
	Generic: {
		title: "a generic MCP client",
		where: "A stdio MCP server is a program the client starts itself: it runs \"command\" with \"args\",\n" +
			"writes JSON-RPC messages to its stdin and reads replies from its stdout, one per line\n" +
			"(stderr is the server's log). Most clients take this object under \"mcpServers\", keyed by a\n" +
			"name of your choice, e.g. {\"mcpServers\": {\"toolbus\": ...}}:",
		reload: "Restart the client; it should list the %s server and its tools.",
	},
}

// printEntry prints the snippet, the client's own add command if it has
// one, and where the key comes from.
func printEntry(w io.Writer, o Options, snippet string, keyOK bool) {
	g := guides[o.Client]
	fmt.Fprintf(w, "MCP setup for %s: toolbus mcp, relay %s\n\n%s\n\n%s\n", g.title, o.Relay, g.where, strings.TrimSuffix(snippet, "\n"))
	if line := CommandLine(o); line != "" {
		intro := "Or let Codex add it:"
		if o.Client == ClaudeCode {
			// .mcp.json is meant to be committed, but this entry holds
			// this machine's paths.
			intro = "The entry holds this machine's paths; to add it for all your projects instead\n(user scope, nothing in the repository), run:"
		}
		fmt.Fprintf(w, "\n%s\n\n  %s\n", intro, line)
	}
	state := "see the warning above"
	if keyOK {
		state = "present, mode 0600"
	}
	fmt.Fprintf(w, "\nKey: toolbus mcp reads it from\n  %s (%s)\n"+
		"The key itself never goes into this config, a command line or a chat.\n", o.KeyFile, state)
}

// printTrial prints a prompt to try the setup with, what a working setup
// answers, and what the two usual failures mean.
func printTrial(w io.Writer, o Options) {
	g := guides[o.Client]
	fmt.Fprintf(w, "\nTry it:\n  1. Have a worker on the bus: `toolbus up` starts one, or run\n"+
		"       toolbus worker --relay %s --workdir DIR\n", o.Relay)
	fmt.Fprintf(w, "  2. "+g.reload+"\n  3. Ask your agent:\n\n", o.Name)
	fmt.Fprintf(w, "     List the tools you have from %s, then call the worker's shell tool with {\"command\": \"pwd\"}.\n\n", o.Name)
	fmt.Fprintf(w, "It should list each worker's tools as <worker>__shell, <worker>__read_file and so on,\n")
	if o.Client == ClaudeCode {
		fmt.Fprintf(w, "(Claude Code shows them as mcp__%s__<worker>__shell)\n", o.Name)
	}
	fmt.Fprintf(w, "and answer with the worker's working directory (its --workdir), which need not be\nyour current directory.\n\n")
	fmt.Fprintf(w, "If it has no %s tools: the relay at %s is unreachable or no worker is connected to it.\n", o.Name, o.Relay)
	fmt.Fprintf(w, "If the call is refused: your key is not a workspace member. Print your npub with\n"+
		"  toolbus key show --key-file %s\nand have an admin run\n  toolbus members add NPUB --relay %s\n",
		shellQuote(o.KeyFile), o.Relay)
}
