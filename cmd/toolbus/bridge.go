package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"toolbus/bus"
	"toolbus/mcpadapter"
	"toolbus/signer"
)

func init() {
	register("bridge", "put an existing MCP server on the bus (-- COMMAND ARGS, or --url)", runBridge)
}

func runBridge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus bridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var wf workerFlags
	fs.StringVar(&wf.relay, "relay", "ws://127.0.0.1:7447", "relay websocket URL")
	fs.StringVar(&wf.keyFile, "key-file", "", "the bridge's key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	fs.StringVar(&wf.name, "name", "", "name of the bridged server on the bus (required)")
	fs.StringVar(&wf.allow, "allow", "", "comma-separated caller pubkeys; default: the workspace members")
	fs.BoolVar(&wf.allowAnyone, "allow-anyone", false, "serve every caller")
	fs.StringVar(&wf.encryption, "encryption", "optional", "optional, required or disabled")
	fs.Float64Var(&wf.quota, "quota", 5, "tools/call per second per caller (0: no quota)")
	fs.IntVar(&wf.quotaBurst, "quota-burst", 20, "calls a caller may burst")
	url := fs.String("url", "", "upstream streamable HTTP MCP endpoint (instead of a command)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	command := fs.Args()
	if wf.name == "" || (len(command) == 0) == (*url == "") {
		fail(stderr, "usage: toolbus bridge --name N [--relay URL] [--key-file F] -- COMMAND ARGS…  |  --url URL")
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	key, _, err := loadUserKey(wf.keyFile, "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := mcpadapter.NewBridge(mcpadapter.BridgeOptions{Name: wf.name, Command: command, URL: *url,
		Env: os.Environ(), Logger: logger})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if err := serveBridge(ctx, b, wf, key, logger); err != nil && ctx.Err() == nil {
		return fail(stderr, "%v", err)
	}
	return 0
}

// serveBridge runs the upstream supervisor and, once it is mirrored, the
// bus server in front of it.
func serveBridge(ctx context.Context, b *mcpadapter.Bridge, wf workerFlags, key *signer.Local, logger *slog.Logger) error {
	go b.Run(ctx)
	select {
	case <-b.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	opts, err := wf.serverOptions(ctx, logger)
	if err != nil {
		return err
	}
	opts.About = "bridged MCP server"
	conn, err := bus.Dial(ctx, wf.relay, &bus.ConnOptions{Signer: key, Logger: logger})
	if err != nil {
		return err
	}
	defer conn.Close()
	srv, err := bus.NewServer(key, b.Server(), opts)
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-srv.Ready():
			logger.Info("bridge ready", "name", wf.name, "npub", key.NPub())
		case <-ctx.Done():
		}
	}()
	return srv.Serve(ctx, conn)
}
