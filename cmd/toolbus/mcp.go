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
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/mcpadapter"
	"toolbus/signer"
)

func init() {
	register("mcp", "MCP server for a local agent: the bus's tools (stdio, or --listen)", runMCP)
}

type mcpFlags struct {
	relay, keyFile, workers, listen string
	publicURL                       string
	plaintext, nip98, flat          bool
	timeout                         time.Duration
}

func runMCP(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f mcpFlags
	fs.StringVar(&f.relay, "relay", "ws://127.0.0.1:7447", "relay websocket URL")
	fs.StringVar(&f.keyFile, "key-file", "", "your key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	fs.StringVar(&f.workers, "workers", "", "comma-separated worker pubkeys to expose (default: every member's worker)")
	fs.StringVar(&f.listen, "listen", "", "serve streamable HTTP on 127.0.0.1:PORT instead of stdio (a non-loopback address needs --nip98)")
	fs.BoolVar(&f.nip98, "nip98", false, "with --listen: require NIP-98 auth by your own key")
	fs.StringVar(&f.publicURL, "public-url", "", "with --listen --nip98: the URL clients reach the endpoint at (http://host:port/), which NIP-98 tokens must name; its host is accepted in the Host header")
	fs.BoolVar(&f.flat, "flat", false, "with exactly one --workers key: expose that worker's tools under their own names (no <worker>__ prefix), and its resources, prompts and completions")
	fs.BoolVar(&f.plaintext, "plaintext", false, "send calls as plaintext kind 25910 instead of gift wraps")
	fs.DurationVar(&f.timeout, "timeout", mcpadapter.DefaultCallTimeout, "deadline of each forwarded call")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := checkListen(f.listen, f.nip98); err != nil {
		return failWith(stderr, 2, "%v", err)
	}
	if err := checkPublicURL(f.publicURL, f.listen, f.nip98); err != nil {
		return failWith(stderr, 2, "%v", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	key, _, err := loadUserKey(f.keyFile, "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveMCP(ctx, f, key, logger, stdout); err != nil && ctx.Err() == nil {
		return fail(stderr, "%v", err)
	}
	return 0
}

func serveMCP(ctx context.Context, f mcpFlags, key *signer.Local, logger *slog.Logger, stdout io.Writer) error {
	a, err := startAdapter(ctx, f, key, logger)
	if err != nil {
		return err
	}
	if f.listen == "" {
		return a.Server().Run(ctx, &mcp.StdioTransport{})
	}
	return serveMCPHTTP(ctx, a, f, key, stdout)
}

func startAdapter(ctx context.Context, f mcpFlags, key *signer.Local, logger *slog.Logger) (*mcpadapter.Adapter, error) {
	workers, err := parseKeys(f.workers)
	if err != nil {
		return nil, fmt.Errorf("--workers: %w", err)
	}
	if f.flat && len(workers) != 1 {
		return nil, errors.New("--flat needs exactly one key in --workers")
	}
	dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := bus.Dial(dialCtx, f.relay, &bus.ConnOptions{Signer: key, Logger: logger})
	if err != nil {
		return nil, err
	}
	wrap := bus.WrapGift
	if f.plaintext {
		wrap = bus.WrapNone
	}
	// The subscriptions live as long as ctx: only the dial is time-boxed.
	client, err := bus.NewClient(ctx, conn, key, &bus.ClientOptions{Wrap: wrap, Logger: logger})
	if err != nil {
		return nil, err
	}
	opts := mcpadapter.Options{Conn: conn, Client: client, CallTimeout: f.timeout, Logger: logger,
		Workers: workers, Flat: f.flat, Key: key}
	if len(opts.Workers) == 0 {
		if opts.RelayPubKey, err = bus.RelayPubKey(dialCtx, f.relay); err != nil {
			return nil, err
		}
	}
	a, err := mcpadapter.New(opts)
	if err != nil {
		return nil, err
	}
	return a, a.Start(ctx)
}

func serveMCPHTTP(ctx context.Context, a *mcpadapter.Adapter, f mcpFlags, key *signer.Local, stdout io.Writer) error {
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	h := a.HTTPHandler(mcpadapter.HTTPOptions{Addr: ln.Addr().String(), PublicURL: f.publicURL,
		RequireNIP98: f.nip98, Allowed: map[string]bool{key.PublicKey(): true}})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "toolbus mcp listening on http://%s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// checkListen refuses a --listen address the network can reach unless
// NIP-98 auth guards it: only localhost and loopback IPs pass without. The
// Host and Origin checks stop web pages (DNS rebinding), not a network
// client, which sends whatever Host it likes.
func checkListen(addr string, nip98 bool) error {
	if addr == "" || nip98 {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("--listen %s is not a loopback address: anyone who can reach it could act with your key; "+
		"listen on 127.0.0.1:PORT, or add --nip98 to require NIP-98 auth by your key", addr)
}

// parseKeys parses a comma-separated list of npub/hex keys.
func parseKeys(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		pk, err := signer.ParsePubKey(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pk)
	}
	return out, nil
}

// checkPublicURL accepts --public-url only where it means something: an
// HTTP endpoint that checks NIP-98 tokens, whose u must be this URL.
func checkPublicURL(public, listen string, nip98 bool) error {
	if public == "" {
		return nil
	}
	if listen == "" || !nip98 {
		return errors.New("--public-url goes with --listen and --nip98")
	}
	u, err := url.Parse(public)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("--public-url %q: want http(s)://host[:port]/path", public)
	}
	return nil
}
