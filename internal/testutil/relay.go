// Package testutil starts real toolbus parts for tests: an in-process relay
// served over a real loopback listener, keys, and connected clients.
package testutil

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/relay"
	"toolbus/signer"
)

// Relay is a running in-process relay.
type Relay struct {
	Server *relay.Server
	Config config.Config
	// URL is the websocket URL, HTTPURL the http one.
	URL, HTTPURL string
	// Admin is a workspace admin (and member); Member a plain member.
	Admin, Member *signer.Local
	http          *http.Server
}

// StartRelay runs a members-mode relay on a loopback port with a fresh data
// dir, one admin and one member. mutate may adjust the config first.
func StartRelay(t testing.TB, mutate func(*config.Config)) *Relay {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	r := &Relay{Admin: NewKey(t), Member: NewKey(t)}
	cfg.Workspace.Admins = []string{r.Admin.PublicKey()}
	cfg.Workspace.Members = []string{r.Member.PublicKey()}
	if mutate != nil {
		mutate(&cfg)
	}
	r.Config = cfg
	r.start(t)
	return r
}

// Restart stops the relay and starts it again on the same data dir (and a
// new port), as a process restart would.
func (r *Relay) Restart(t testing.TB) {
	t.Helper()
	r.Stop(t)
	r.Config.Listen = "127.0.0.1:0"
	r.Config.PublicURL = ""
	r.start(t)
}

func (r *Relay) start(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Config.Listen = ln.Addr().String()
	if r.Config.PublicURL == "" {
		r.Config.PublicURL = "http://" + ln.Addr().String()
	}
	if err := r.Config.Validate(); err != nil {
		t.Fatal(err)
	}
	srv, err := relay.New(r.Config, Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	r.Server = srv
	r.URL = srv.URL()
	r.HTTPURL = strings.Replace(r.URL, "ws", "http", 1)
	r.http = &http.Server{Handler: srv}
	go r.http.Serve(ln)
	t.Cleanup(func() { r.Stop(t) })
}

// Stop shuts the relay down gracefully (idempotent).
func (r *Relay) Stop(t testing.TB) {
	if r.http == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.http.Shutdown(ctx)
	if err := r.Server.Shutdown(ctx); err != nil {
		t.Errorf("relay shutdown: %v", err)
	}
	r.http = nil
}

// NewKey returns a fresh random key.
func NewKey(t testing.TB) *signer.Local {
	t.Helper()
	k, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Connect opens a client connection; with a key it also authenticates
// (NIP-42) and fails the test if that does not succeed.
func Connect(t testing.TB, url string, key *signer.Local) *nostr.Relay {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := nostr.RelayConnect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	if key != nil {
		if err := Auth(ctx, c, key); err != nil {
			t.Fatalf("auth: %v", err)
		}
	}
	return c
}

// Auth authenticates c as key, retrying while the relay's challenge has not
// arrived yet.
func Auth(ctx context.Context, c *nostr.Relay, key *signer.Local) error {
	for {
		err := c.Auth(ctx, func(ev *nostr.Event) error { return key.SignEvent(ctx, ev) })
		if err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "challenge") {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Signed returns an event of kind with content, signed by key.
func Signed(t testing.TB, key *signer.Local, kind int, content string, tags ...nostr.Tag) nostr.Event {
	t.Helper()
	ev := nostr.Event{Kind: kind, Content: content, CreatedAt: nostr.Now(), Tags: nostr.Tags(tags)}
	if err := key.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// Logger returns a logger writing to the test log (only shown on failure
// or with -v). A fuzz test's relay logs to stderr at warning level instead:
// testing forbids f.Logf while its fuzz target runs, and the relay logs
// from its own goroutines whenever it likes.
func Logger(t testing.TB) *slog.Logger {
	if _, fuzz := t.(*testing.F); fuzz {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimSpace(string(p)))
	return len(p), nil
}

var _ io.Writer = testWriter{}
