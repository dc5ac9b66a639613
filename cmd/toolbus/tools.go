package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/tools"
)

func init() {
	register("tools", "serve the built-in tools as a local MCP server (--stdio)", runTools)
}

// runTools serves the tools over stdio for a local agent. Unconfined by
// default: a local agent already has a shell; --confine restricts the file
// tools to the working directory anyway.
func runTools(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout (required)")
	workdir := fs.String("workdir", ".", "working directory")
	confine := fs.Bool("confine", false, "keep file tools inside the working directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !*stdio {
		return fail(stderr, "toolbus tools needs --stdio (the only transport for now)")
	}
	logger, _ := newLogger(stderr, "text", "warn")
	t, err := tools.New(tools.Options{Workdir: *workdir, Confine: *confine, Logger: logger})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer t.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := t.Server.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return fail(stderr, "%v", err)
	}
	return 0
}
