package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"toolbus/internal/config"
	"toolbus/relay"
)

func init() {
	register("relay", "run the workspace relay", func(args []string, stdout, stderr io.Writer) int {
		return runRelayWith("relay", args, stdout, stderr, nil, nil)
	})
}

// serverFlags are the flags shared by every command that runs a relay.
type serverFlags struct {
	configPath, dataDir, listen, logFormat string
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.configPath, "config", "", "TOML config file (default: none, built-in defaults)")
	fs.StringVar(&f.dataDir, "data-dir", "", "data directory (overrides data_dir)")
	fs.StringVar(&f.listen, "listen", "", "listen address host:port (overrides listen)")
	fs.StringVar(&f.logFormat, "log-format", "", "log format: text or json (overrides log_format)")
}

// load reads the config file, applies the flags (and adjust) and validates.
func (f *serverFlags) load(adjust func(*config.Config)) (config.Config, error) {
	cfg, err := config.Read(f.configPath)
	if err != nil {
		return cfg, err
	}
	cfg.ApplyFlags(config.Flags{DataDir: f.dataDir, Listen: f.listen})
	if f.logFormat != "" {
		cfg.LogFormat = f.logFormat
	}
	if adjust != nil {
		adjust(&cfg)
	}
	return cfg, cfg.Validate()
}

// runRelayWith starts the relay and serves until SIGINT/SIGTERM. adjust,
// when set, edits the config before validation; ready runs once the relay
// listens (toolbus up prints its summary there).
func runRelayWith(name string, args []string, stdout, stderr io.Writer,
	adjust func(*config.Config), ready readyFunc) int {
	fs := flag.NewFlagSet("toolbus "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf serverFlags
	sf.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := sf.load(adjust)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	logger, err := newLogger(stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if err := serveRelay(cfg, logger, ready); err != nil {
		logger.Error("relay stopped", "err", err)
		return 1
	}
	return 0
}

// readyFunc runs once the relay listens; ctx ends when shutdown begins.
type readyFunc func(ctx context.Context, srv *relay.Server, cfg config.Config, logger *slog.Logger)

func serveRelay(cfg config.Config, logger *slog.Logger, ready readyFunc) error {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	srv, err := relay.New(cfg, logger)
	if err != nil {
		ln.Close()
		return err
	}
	handler, closeGit, err := relayHandler(srv, cfg, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeGit()
	httpSrv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	logger.Info("relay listening", "addr", ln.Addr().String(), "url", srv.URL(), "pubkey", srv.PublicKey(), "data_dir", cfg.DataDir)
	readyCtx, stopReady := context.WithCancel(context.Background())
	defer stopReady()
	if ready != nil {
		ready(readyCtx, srv, cfg, logger)
	}
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigc)
	select {
	case err := <-errc:
		return err
	case sig := <-sigc:
		logger.Info("shutting down", "signal", sig.String())
	}
	stopReady() // stop what runs beside the relay (toolbus up's worker) first
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("http shutdown", "err", err)
	}
	return srv.Shutdown(ctx)
}

// relayHandler is the relay, with git hosting at /git/ when enabled.
func relayHandler(srv *relay.Server, cfg config.Config, logger *slog.Logger) (http.Handler, func(), error) {
	if !cfg.Git.Enabled {
		return srv, func() {}, nil
	}
	git, err := newGitBridge(srv, cfg, logger)
	if err != nil {
		return nil, nil, fmt.Errorf("git hosting: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/git/", git)
	mux.Handle("/", srv)
	return mux, func() { git.Close() }, nil
}
