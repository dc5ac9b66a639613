package main

import (
	"fmt"
	"io"
	"strings"

	"toolbus/internal/config"
	"toolbus/relay"
	"toolbus/signer"
)

func init() {
	register("up", "start a workspace relay for you and print how to connect", runUp)
}

// runUp is the zero-setup entry point: it makes sure the user has a key
// (creating ~/.config/toolbus/key on first use), makes that key the
// workspace admin for this run, starts the relay and prints a summary.
func runUp(args []string, stdout, stderr io.Writer) int {
	key, created, err := signer.EnsureKeyFile(defaultKeyFile())
	if err != nil {
		return fail(stderr, "your key: %v", err)
	}
	if created {
		fmt.Fprintf(stdout, "created your key in %s (mode 0600)\n", defaultKeyFile())
	}
	extraAdmin := key.PublicKey()
	return runRelayWith("up", args, stdout, stderr, func(cfg *config.Config) {
		cfg.Workspace.Admins = append(cfg.Workspace.Admins, extraAdmin)
	}, func(srv *relay.Server, cfg config.Config) {
		printSummary(stdout, srv, cfg, key)
	})
}

func printSummary(w io.Writer, srv *relay.Server, cfg config.Config, you *signer.Local) {
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
