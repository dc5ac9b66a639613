package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"toolbus/internal/bench"
)

func init() {
	register("bench", "benchmark toolbus against bare khatru and direct stdio/file:// (all suites, or one: relay, bus, tools, mcp, git)", runBench)
}

// runBench runs the benchmark (see package bench) and prints a table, or
// the JSON rows with --json. It exits 1 when a relay misbehaved during the
// run, so that CI notices, after still printing the numbers.
//
// The suite is an optional positional argument, before or after the flags:
// `toolbus bench bus --quick` and `toolbus bench --quick bus` both work.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: toolbus bench [%s] [flags]\n", strings.Join(bench.Suites, "|"))
		fs.PrintDefaults()
	}
	quick := fs.Bool("quick", false, "short run (under a minute), for CI")
	asJSON := fs.Bool("json", false, "print the rows as JSON instead of a table")
	out := fs.String("out", "", "also write the JSON rows to this file")
	suite, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		suite, rest = args[0], args[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if suite == "" && fs.NArg() == 1 {
		suite = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolbus bench: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if !bench.ValidSuite(suite) {
		fmt.Fprintf(stderr, "toolbus bench: unknown suite %q\n", suite)
		fs.Usage()
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, "bench: find own executable: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, bench.Options{Quick: *quick, Exe: exe, Progress: stderr, Suite: suite})
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
