package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"toolbus/bus"
	"toolbus/signer"
	"toolbus/tools"
)

func init() {
	register("worker", "serve the built-in tools on the bus", runWorker)
}

// workerFlags configure `toolbus worker`.
type workerFlags struct {
	relay, keyFile, workdir, name, allow, encryption string
	allowAnyone, confine, gitIdentity                bool
	gitName                                          string
	quota                                            float64
	quotaBurst                                       int
	logFormat                                        string
}

func (f *workerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.relay, "relay", "ws://127.0.0.1:7447", "relay websocket URL")
	fs.StringVar(&f.keyFile, "key-file", "", "the worker's key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	fs.StringVar(&f.workdir, "workdir", ".", "working directory the tools act on")
	fs.StringVar(&f.name, "name", "", "worker name in announcements (default: the directory name)")
	fs.StringVar(&f.allow, "allow", "", "comma-separated caller pubkeys (npub or hex), each also required to be a current workspace member when the relay keeps a membership list; default: the workspace members")
	fs.BoolVar(&f.allowAnyone, "allow-anyone", false, "serve every caller (dangerous: the shell tool runs commands)")
	fs.BoolVar(&f.confine, "confine", true, "keep file tools inside the working directory")
	fs.StringVar(&f.encryption, "encryption", "optional", "optional, required or disabled")
	fs.Float64Var(&f.quota, "quota", 5, "tools/call per second per caller (0: no quota)")
	fs.IntVar(&f.quotaBurst, "quota-burst", 20, "calls a caller may burst")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.BoolVar(&f.gitIdentity, "git-identity", true, "shell calls commit, sign and push to the relay as the worker")
	fs.StringVar(&f.gitName, "git-name", "", "user.name of the worker's commits (default: its npub)")
}

func runWorker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f workerFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger, err := newLogger(stderr, f.logFormat, "info")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	key, src, err := loadUserKey(f.keyFile, "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("worker starting", "pubkey", key.PublicKey(), "npub", key.NPub(), "key", string(src), "relay", f.relay)
	if err := serveWorker(ctx, f, key, logger, nil); err != nil && ctx.Err() == nil {
		return fail(stderr, "%v", err)
	}
	return 0
}

// serveWorker runs the tools on the bus until ctx ends. ready, when set, is
// called once the worker is subscribed and announced.
func serveWorker(ctx context.Context, f workerFlags, key *signer.Local, logger *slog.Logger, ready func(*bus.Server)) error {
	opts, err := f.serverOptions(ctx, logger)
	if err != nil {
		return err
	}
	session, err := os.MkdirTemp("", "toolbus-worker-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(session)
	var extraEnv []string
	if f.gitIdentity {
		if extraEnv, err = workerGitEnv(session, key, f.relay, f.gitName); err != nil {
			return err
		}
	}
	t, err := tools.New(tools.Options{Workdir: f.workdir, Confine: f.confine, Logger: logger,
		Name: "toolbus-worker", SessionDir: session, ExtraEnv: extraEnv})
	if err != nil {
		return err
	}
	defer t.Close()
	if opts.Name == "" {
		opts.Name = lastPathElem(t.Env.Workdir)
	}
	conn, err := bus.Dial(ctx, f.relay, &bus.ConnOptions{Signer: key, Logger: logger})
	if err != nil {
		return err
	}
	defer conn.Close()
	srv, err := bus.NewServer(key, t.Server, opts)
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-srv.Ready():
			logger.Info("worker ready", "npub", key.NPub(), "workdir", t.Env.Workdir, "confine", f.confine)
			if ready != nil {
				ready(srv)
			}
		case <-ctx.Done():
		}
	}()
	return srv.Serve(ctx, conn)
}

func (f workerFlags) serverOptions(ctx context.Context, logger *slog.Logger) (*bus.ServerOptions, error) {
	o := &bus.ServerOptions{Name: f.name, About: "toolbus built-in tools", Announce: true,
		AllowAnyone: f.allowAnyone, QuotaPerSecond: f.quota, QuotaBurst: f.quotaBurst, Logger: logger}
	switch f.encryption {
	case "optional":
	case "required":
		o.Encryption = bus.EncryptionRequired
	case "disabled":
		o.Encryption = bus.EncryptionDisabled
	default:
		return nil, fmt.Errorf("--encryption: want optional, required or disabled, got %q", f.encryption)
	}
	for _, a := range strings.Split(f.allow, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		pk, err := signer.ParsePubKey(a)
		if err != nil {
			return nil, fmt.Errorf("--allow: %w", err)
		}
		o.Allow = append(o.Allow, pk)
	}
	if o.AllowAnyone {
		return o, nil
	}
	pk, err := bus.RelayPubKey(ctx, f.relay)
	switch {
	case err == nil:
		o.RelayPubKey = pk // with --allow too: removing a member must reach workers that list them
	case len(o.Allow) == 0:
		return nil, fmt.Errorf("learning the workspace members: %w", err)
	default:
		logger.Warn("relay key unknown: the --allow list alone decides, removed members are not refused", "err", err)
	}
	return o, nil
}

func lastPathElem(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
