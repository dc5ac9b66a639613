package main

import (
	"context"
	"flag"
	"io"
	"os/signal"
	"syscall"

	"toolbus/internal/bench"
)

func init() {
	register("bench-baseline", "(internal) bare khatru relay for benchmarks", runBaseline)
}

// runBaseline serves the benchmark's reference relay until SIGINT/SIGTERM.
// `toolbus bench` starts it as a child process, so that both relays it
// compares run the same way: a process of their own, from one binary.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus bench-baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7448", "listen address host:port")
	dataDir := fs.String("data-dir", "", "data directory (required; the store goes in DIR/events)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dataDir == "" {
		return fail(stderr, "bench-baseline: --data-dir is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := bench.ServeBaseline(ctx, *listen, *dataDir, stderr); err != nil {
		return fail(stderr, "bench-baseline: %v", err)
	}
	return 0
}
