package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"toolbus/internal/bench"
)

func init() {
	register("bench", "benchmark the relay against a bare khatru relay", runBench)
}

// runBench runs the benchmark (see package bench) and prints a table, or
// the JSON rows with --json. It exits 1 when a relay misbehaved during the
// run, so that CI notices, after still printing the numbers.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "short run (under a minute), for CI")
	asJSON := fs.Bool("json", false, "print the rows as JSON instead of a table")
	out := fs.String("out", "", "also write the JSON rows to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, "bench: find own executable: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, bench.Options{Quick: *quick, Exe: exe, Progress: stderr})
	if err != nil {
		return fail(stderr, "bench: %v", err)
	}
	if err := printReport(rep, *asJSON, *out, stdout); err != nil {
		return fail(stderr, "bench: %v", err)
	}
	if len(rep.Failures) > 0 {
		if *asJSON {
			// The table lists failures; JSON has no place for them.
			for _, f := range rep.Failures {
				fmt.Fprintf(stderr, "FAIL: %s\n", f)
			}
		}
		return fail(stderr, "bench: %d failure(s) while measuring (see FAIL lines)", len(rep.Failures))
	}
	return 0
}

func printReport(rep *bench.Report, asJSON bool, out string, stdout io.Writer) error {
	if out != "" {
		var buf bytes.Buffer
		if err := bench.WriteJSON(&buf, rep.Rows); err != nil {
			return err
		}
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	if asJSON {
		return bench.WriteJSON(stdout, rep.Rows)
	}
	return rep.WriteTable(stdout)
}
