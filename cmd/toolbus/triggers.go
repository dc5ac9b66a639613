package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"toolbus/triggers"
)

func init() {
	register("triggers", "call tools when events happen (pushes, mentions) and report in channels", runTriggers)
}

type triggersFlags struct {
	config, keyFile, logFormat, logLevel string
	check                                bool
}

func runTriggers(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus triggers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f triggersFlags
	fs.StringVar(&f.config, "config", "triggers.toml", "trigger configuration (see triggers.example.toml)")
	fs.StringVar(&f.keyFile, "key-file", "", "the runner's key file (default: NOSTR_PRIVATE_KEY, then key_file, then "+defaultKeyFile()+")")
	fs.BoolVar(&f.check, "check", false, "check the configuration, list the triggers and exit")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: toolbus triggers [--config FILE] [--key-file F] [--check]")
		return 2
	}
	cfg, err := triggers.Load(f.config)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if f.check {
		for _, t := range cfg.Triggers {
			fmt.Fprintf(stdout, "%-20s kinds %v → %s → %s\n", t.Name, t.Filter.Kinds, t.Tool, t.Reply)
		}
		return 0
	}
	return serveTriggers(f, cfg, stderr)
}

// serveTriggers runs the triggers until SIGINT or SIGTERM. Stopping at
// any moment is safe: calls under way keep running on their workers, and
// the next start collects their results.
func serveTriggers(f triggersFlags, cfg *triggers.Config, stderr io.Writer) int {
	logger, err := newLogger(stderr, f.logFormat, f.logLevel)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	key, src, err := loadUserKey(f.keyFile, cfg.KeyFile)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	r, err := triggers.New(cfg, key, &triggers.Options{Logger: logger})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("triggers starting", "npub", key.NPub(), "key", string(src), "relay", cfg.Relay,
		"state_dir", cfg.StateDir, "triggers", len(cfg.Triggers))
	if err := r.Run(ctx); err != nil {
		return fail(stderr, "%v", err)
	}
	logger.Info("triggers stopped")
	return 0
}
