// Command toolbus is the one CLI of toolbus: the workspace relay, key
// management, and (in later subcommands) the tool bus worker, the MCP
// adapter and git helpers.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"toolbus/signer"
	"toolbus/tools/fallback"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func([]string, io.Writer, io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	// Take NOSTR_PRIVATE_KEY out of the environment before anything else
	// runs, so that no child process toolbus ever starts can inherit it.
	signer.TakeEnv()
	// argv0 dispatch: the shell tool puts rg and tree on PATH as links to
	// this binary, which forwards to the real programs or a fallback.
	name := filepath.Base(os.Args[0])
	if name == "rg" || name == "tree" {
		os.Exit(fallback.Main(name, os.Args[1:], os.Stdout, os.Stderr))
	}
	if helper, ok := gitHelperNames[name]; ok {
		os.Exit(helper(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "toolbus: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "toolbus — a workspace Nostr relay that is also a tool bus for coding agents")
	fmt.Fprintln(w, "\nUsage: toolbus <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(commands[n].summary, "(internal)") {
			continue // plumbing for tests and benchmarks, not for users
		}
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'toolbus <command> -h' for a command's flags.")
}

// fail prints a one-line error and returns exit code 1.
func fail(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "toolbus: "+strings.TrimSuffix(format, "\n")+"\n", args...)
	return 1
}
