package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"toolbus/bus"

	"toolbus/internal/config"
	"toolbus/relay"
	"toolbus/signer"
)

func init() {
	register("up", "start a workspace relay for you and print how to connect", runUp)
}

// runUp is the zero-setup entry point: it makes sure the user has a key
// (creating ~/.config/toolbus/key on first use), makes that key the
// workspace admin for this run, starts the relay and a worker serving the
// built-in tools on the current directory (with its own key, a member,
// kept in data_dir/worker.key), and prints how to connect.
func runUp(args []string, stdout, stderr io.Writer) int {
	key, created, err := signer.EnsureKeyFile(defaultKeyFile())
	if err != nil {
		return fail(stderr, "your key: %v", err)
	}
	if created {
		fmt.Fprintf(stdout, "created your key in %s (mode 0600)\n", defaultKeyFile())
	}
	var workerKey *signer.Local
	return runRelayWith("up", args, stdout, stderr, func(cfg *config.Config) {
		cfg.Workspace.Admins = append(cfg.Workspace.Admins, key.PublicKey())
		if workerKey, _, err = signer.EnsureKeyFile(filepath.Join(cfg.DataDir, "worker.key")); err == nil {
			cfg.Workspace.Members = append(cfg.Workspace.Members, workerKey.PublicKey())
		}
	}, func(ctx context.Context, srv *relay.Server, cfg config.Config, logger *slog.Logger) {
		if workerKey == nil {
			logger.Error("no worker: could not create its key", "err", err)
			printSummary(stdout, srv, cfg, key, nil)
			return
		}
		f := workerFlags{relay: srv.URL(), workdir: ".", confine: true, encryption: "optional", quota: 5,
			quotaBurst: 20, gitIdentity: true}
		go func() {
			err := serveWorker(ctx, f, workerKey, logger, func(*bus.Server) { printSummary(stdout, srv, cfg, key, workerKey) })
			if err != nil && ctx.Err() == nil {
				logger.Error("worker stopped", "err", err)
			}
		}()
	})
}

func printSummary(w io.Writer, srv *relay.Server, cfg config.Config, you, worker *signer.Local) {
	httpURL := httpForm(srv.URL())
	fmt.Fprintf(w, `
toolbus is up.

  relay       %s
  relay key   %s
  you         %s (workspace admin; key file %s)
  workspace   %s mode, data in %s

Check it:         curl -H 'Accept: application/nostr+json' %s
Add a member:     toolbus members add <npub> --relay %s
List members:     toolbus members list --relay %s
Stop:             Ctrl-C (pending events are flushed before exit)

`, srv.URL(), signer.EncodeNPub(srv.PublicKey()), you.NPub(), defaultKeyFile(),
		cfg.Workspace.Mode, cfg.DataDir, httpURL, httpURL, httpURL)
	if worker != nil {
		fmt.Fprintf(w, `Worker:           %s serves shell, read_file, str_replace, view_image, todo
                  on this directory (file tools confined to it)
Try a tool:       toolbus call --relay %s --to %s shell '{"command":"ls"}'

`, worker.NPub(), srv.URL(), worker.NPub())
	}
}

// httpForm turns a ws(s):// relay URL into its http(s):// form.
func httpForm(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + strings.TrimPrefix(u, "ws://")
	case strings.HasPrefix(u, "wss://"):
		return "https://" + strings.TrimPrefix(u, "wss://")
	}
	return u
}
