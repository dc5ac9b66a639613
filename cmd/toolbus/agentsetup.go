package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"toolbus/mcpadapter/agentsetup"
)

func init() {
	register("agent-setup", "print (or --write) the MCP config that points your coding agent at toolbus mcp", runAgentSetup)
}

func runAgentSetup(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus agent-setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s agentsetup.Setup
	client := fs.String("client", "", "claude-code, cursor, codex or generic")
	fs.StringVar(&s.Relay, "relay", agentsetup.DefaultRelay, "relay websocket URL")
	fs.StringVar(&s.KeyFile, "key-file", defaultKeyFile(), "key file toolbus mcp signs with (only its path goes into the config)")
	fs.StringVar(&s.Name, "name", agentsetup.DefaultName, "entry name in the client's config")
	command := fs.String("command", "", "toolbus binary the client runs (default: this binary)")
	fs.BoolVar(&s.Write, "write", false, "write the entry into the client's config file after asking")
	fs.BoolVar(&s.Yes, "yes", false, "with --write, do not ask")
	fs.StringVar(&s.ConfigPath, "config", "", "config file --write edits (default: the client's usual file)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 0 || *client == "" {
		fmt.Fprintln(stderr, "usage: toolbus agent-setup --client claude-code|cursor|codex|generic [--relay URL] [--key-file F] [--name N] [--command PATH] [--write [--yes] [--config FILE]]")
		return 2
	}
	if err := agentSetupOptions(&s, *client, *command); err != nil {
		return fail(stderr, "%v", err)
	}
	if err := agentsetup.Run(s, os.Stdin, stdout, stderr); err != nil {
		return fail(stderr, "%v", err)
	}
	return 0
}

// agentSetupOptions resolves the flags into absolute paths: the client
// starts toolbus mcp from a directory of its choosing, so nothing in the
// entry may be relative.
func agentSetupOptions(s *agentsetup.Setup, client, command string) error {
	var err error
	if s.Client, err = agentsetup.ParseClient(client); err != nil {
		return err
	}
	if s.KeyFile, err = agentsetup.AbsPath(s.KeyFile); err != nil {
		return err
	}
	if s.ConfigPath != "" {
		if s.ConfigPath, err = agentsetup.AbsPath(s.ConfigPath); err != nil {
			return err
		}
	}
	if strings.TrimSpace(command) == "" {
		exe, exeErr := os.Executable()
		var note string
		s.Command, note = agentsetup.ResolveCommand(exe, exeErr)
		if note != "" {
			s.Notes = append(s.Notes, note)
		}
		return nil
	}
	if s.Command, err = agentsetup.AbsCommand(command); err != nil {
		return err
	}
	if note := agentsetup.CommandAdvice(s.Command); note != "" {
		s.Notes = append(s.Notes, note)
	}
	return nil
}
