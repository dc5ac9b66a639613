package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/signer"
)

func init() {
	register("call", "call a tool on a bus worker (or --list its tools)", runCall)
}

// Exit codes of toolbus call: scripts tell a tool's own failure from a call
// that never produced a result.
const (
	exitToolError = 1
	exitTransport = 2
)

type callFlags struct {
	relay, keyFile, to  string
	list, plaintext     bool
	ephemeral, progress bool
	timeout             time.Duration
}

func runCall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f callFlags
	fs.StringVar(&f.relay, "relay", "ws://127.0.0.1:7447", "relay websocket URL")
	fs.StringVar(&f.keyFile, "key-file", "", "your key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	fs.StringVar(&f.to, "to", "", "worker pubkey (npub or hex)")
	fs.BoolVar(&f.list, "list", false, "list the worker's tools instead of calling one")
	fs.BoolVar(&f.plaintext, "plaintext", false, "send kind 25910 in clear instead of a gift wrap")
	fs.BoolVar(&f.ephemeral, "ephemeral", false, "gift-wrap in ephemeral kind 21059 instead of 1059")
	fs.BoolVar(&f.progress, "progress", false, "print progress notifications to stderr")
	fs.DurationVar(&f.timeout, "timeout", bus.DefaultCallTimeout, "deadline for the call")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitTransport
	}
	if f.to == "" || (!f.list && (len(pos) < 1 || len(pos) > 2)) {
		fmt.Fprintln(stderr, "usage: toolbus call --to WORKER [--relay URL] [--key-file F] [--plaintext] TOOL ['JSON-ARGS']\n       toolbus call --to WORKER --list")
		return exitTransport
	}
	return doCall(f, pos, stdout, stderr)
}

func doCall(f callFlags, pos []string, stdout, stderr io.Writer) int {
	worker, err := signer.ParsePubKey(f.to)
	if err != nil {
		return failWith(stderr, exitTransport, "--to: %v", err)
	}
	var toolArgs map[string]any
	if len(pos) == 2 {
		if err := json.Unmarshal([]byte(pos[1]), &toolArgs); err != nil {
			return failWith(stderr, exitTransport, "arguments must be a JSON object: %v", err)
		}
	}
	key, _, err := loadUserKey(f.keyFile, "")
	if err != nil {
		return failWith(stderr, exitTransport, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	client, err := dialClient(ctx, f.relay, key, f.wrapMode())
	if err != nil {
		return failWith(stderr, exitTransport, "%v", err)
	}
	if f.list {
		res, err := client.ListTools(ctx, worker)
		return printCallOutcome(stdout, stderr, res, err, false)
	}
	var opts []bus.CallOption
	if f.progress {
		opts = append(opts, bus.WithProgress(func(p *mcp.ProgressNotificationParams) {
			fmt.Fprintf(stderr, "progress %v/%v %s\n", p.Progress, p.Total, p.Message)
		}))
	}
	res, err := client.CallTool(ctx, worker, pos[0], toolArgs, opts...)
	return printCallOutcome(stdout, stderr, res, err, res != nil && res.IsError)
}

func (f callFlags) wrapMode() bus.WrapMode {
	switch {
	case f.plaintext:
		return bus.WrapNone
	case f.ephemeral:
		return bus.WrapEphemeral
	default:
		return bus.WrapGift
	}
}

// dialClient connects to the relay as key and starts a bus client.
func dialClient(ctx context.Context, relayURL string, key *signer.Local, wrap bus.WrapMode) (*bus.Client, error) {
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: key, Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	return bus.NewClient(ctx, conn, key, &bus.ClientOptions{Wrap: wrap, Logger: quietLogger()})
}

// printCallOutcome prints the result JSON, or the classified error.
func printCallOutcome(stdout, stderr io.Writer, res any, err error, toolFailed bool) int {
	if err != nil {
		var be *bus.Error
		if errors.As(err, &be) {
			out, _ := json.Marshal(map[string]any{"error": map[string]any{"code": be.Code, "message": be.Message,
				"retry_after_ms": be.RetryAfter.Milliseconds()}})
			fmt.Fprintln(stdout, string(out))
		}
		return failWith(stderr, exitTransport, "%v", err)
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(stdout, string(out))
	if toolFailed {
		return exitToolError
	}
	return 0
}

func failWith(stderr io.Writer, code int, format string, args ...any) int {
	fail(stderr, format, args...)
	return code
}
