// Package relay is toolbus's workspace relay: a khatru plugin ([Install])
// usable in anyone's khatru relay, and a standalone server ([New]) that runs
// the same hook slices behind its own connection engine.
//
// # Why an engine of its own
//
// khatru's hook model is kept — policies are constructors returning hook
// functions appended to a *khatru.Relay — but its websocket handler is not
// used by the standalone server, because these properties cannot be had
// from outside it:
//   - one connection's messages are handled in order by one goroutine, so
//     OKs come back in the order EVENTs were sent and a flood costs one
//     goroutine, not one per message;
//   - per-IP budgets and size checks run before signature verification;
//   - every outbound message goes through a bounded per-connection queue, so
//     a subscriber that stops reading is dropped instead of stalling the
//     publisher and everyone behind it;
//   - live matching looks up candidate subscriptions in an index (by id,
//     author, tag value, kind) instead of scanning all of them;
//   - an oversized message gets a NOTICE, and too many subscriptions a
//     CLOSED, instead of a dropped connection;
//   - shutdown stops reading, finishes the messages in hand and flushes
//     every OK already promised before closing the store.
//
// The store pipeline itself (rejection hooks, NIP-09 tombstones, replaceable
// events, NIP-40 expiration tracking) is khatru's AddEvent.
package relay

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/fiatjaf/eventstore/lmdb"
	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/relay/groups"
	"toolbus/relay/policies"
	"toolbus/signer"
)

// Server is the standalone toolbus relay.
type Server struct {
	cfg       config.Config
	log       *slog.Logger
	kr        *khatru.Relay
	store     *lmdb.LMDBBackend
	acl       *ACL
	key       *signer.Local
	index     *subIndex
	visible   []policies.VisibleFunc
	ipLimit   *policies.Limiter
	httpURL   string
	wsURL     string
	mgmt      *management
	mailbox   *mailbox
	audit     *auditLog
	busSeen   *idSet
	groups    *groups.State
	order     *orderLog
	search    *searchIndex
	indexQ    chan indexJob
	indexDone chan struct{}
	commit    *committer

	membershipMu     sync.Mutex
	lastMembershipAt nostr.Timestamp

	queueItems int
	queueBytes int
	upgrader   websocket.Upgrader

	mu      sync.Mutex
	conns   map[*conn]struct{}
	closing bool
	readers sync.WaitGroup
	writers sync.WaitGroup
	queries sync.WaitGroup // stored-event queries; the store outlives them
	perIP   map[string]int
}

// New opens the store and membership under cfg.DataDir (creating the relay
// key on first start) and returns a server ready to serve. cfg must have
// been validated.
func New(cfg config.Config, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data_dir: %w", err)
	}
	key, created, err := signer.EnsureKeyFile(cfg.KeyFilePath())
	if err != nil {
		return nil, fmt.Errorf("relay key: %w", err)
	}
	if created {
		logger.Info("generated relay key", "file", cfg.KeyFilePath(), "pubkey", key.PublicKey())
	}
	acl, err := NewACL(cfg.Workspace.Mode == "open", cfg.MemberKeys(), cfg.AdminKeys(),
		filepath.Join(cfg.DataDir, "acl.json"))
	if err != nil {
		return nil, err
	}
	store := &lmdb.LMDBBackend{Path: filepath.Join(cfg.DataDir, "events"), MaxLimit: cfg.Limits.MaxLimit}
	if err := store.Init(); err != nil {
		return nil, fmt.Errorf("open event store in %s: %w", store.Path, err)
	}
	s := &Server{cfg: cfg, log: logger, store: store, acl: acl, key: key, index: newSubIndex(),
		httpURL: cfg.HTTPURL(), wsURL: cfg.WSURL(), conns: map[*conn]struct{}{}, perIP: map[string]int{},
		queueItems: 4096, queueBytes: 32 << 20, busSeen: newIDSet(100_000),
		mailbox: newMailbox(time.Duration(cfg.ToolBus.MailboxSeconds)*time.Second, cfg.ToolBus.MailboxPerRecipient)}
	if cfg.ToolBus.Audit {
		if s.audit, err = newAuditLog(filepath.Join(cfg.DataDir, "audit"), cfg.ToolBus.AuditRetentionDays, logger); err != nil {
			store.Close()
			return nil, err
		}
	}
	disk := &diskGuard{path: cfg.DataDir, minFree: uint64(cfg.Limits.MinFreeDiskMB) << 20}
	if s.commit, err = newCommitter(store, disk, logger); err != nil {
		store.Close()
		return nil, err
	}
	s.kr = s.newKhatru()
	s.mgmt = newManagement(s)
	if err := s.openSearch(context.Background()); err != nil {
		store.Close()
		return nil, err
	}
	if err := s.initGroups(context.Background()); err != nil {
		store.Close()
		return nil, err
	}
	s.visible = append(s.visible, s.groupVisibility)
	acl.OnChange(s.membershipChanged)
	if err := s.publishMembership(); err != nil {
		s.log.Warn("could not publish the membership list", "err", err)
	}
	return s, nil
}

// newKhatru builds the hook container: the store, then toolbus's rules.
func (s *Server) newKhatru() *khatru.Relay {
	kr := khatru.NewRelay()
	kr.Log = log.New(slogWriter{s.log}, "", 0)
	kr.StoreEvent = append(kr.StoreEvent, s.store.SaveEvent)
	kr.QueryEvents = append(kr.QueryEvents, s.store.QueryEvents)
	kr.DeleteEvent = append(kr.DeleteEvent, s.store.DeleteEvent)
	kr.ReplaceEvent = append(kr.ReplaceEvent, s.store.ReplaceEvent)
	kr.QueryEvents = append(kr.QueryEvents, s.mailbox.query)
	opts := s.options()
	installRules(kr, opts)
	s.visible = append(s.visible, opts.visibility(), busVisibility)
	s.ipLimit = policies.NewLimiter(s.cfg.Limits.IPEventsPerSecond, s.cfg.Limits.IPEventsBurst, 100_000)
	return kr
}

func (s *Server) options() Options {
	l := s.cfg.Limits
	return Options{
		Membership:     s.acl,
		Limits:         l,
		PubKeyRate:     policies.NewLimiter(l.EventsPerSecond, l.EventsBurst, 100_000),
		AnonymousWraps: s.cfg.ToolBus.AnonymousWraps,
	}
}

// PublicKey returns the relay's own public key (hex).
func (s *Server) PublicKey() string { return s.key.PublicKey() }

// ACL returns the workspace membership the relay enforces.
func (s *Server) ACL() *ACL { return s.acl }

// URL returns the public websocket URL.
func (s *Server) URL() string { return s.wsURL }

// ServeHTTP routes websocket upgrades, NIP-11 and NIP-86 requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		s.serveWebsocket(w, r)
	case r.Method == http.MethodOptions:
		writeCORS(w)
		w.WriteHeader(http.StatusNoContent)
	case strings.Contains(r.Header.Get("Accept"), "application/nostr+json"):
		s.serveNIP11(w, r)
	case strings.HasPrefix(r.Header.Get("Content-Type"), "application/nostr+json+rpc"):
		s.mgmt.ServeHTTP(w, r)
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "toolbus relay. Connect a Nostr client to %s\n", s.wsURL)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	ip := clientIP(r, s.cfg.TrustProxy)
	if !s.admit(ip) {
		http.Error(w, "too many connections from your address", http.StatusTooManyRequests)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.release(ip)
		return
	}
	c := newConn(s, ws, ip)
	if !s.track(c) {
		s.release(ip)
		ws.Close()
		return
	}
	s.readers.Add(2)
	s.writers.Add(1)
	go c.writeLoop()
	go c.ackLoop()
	// Always offer AUTH: even in open mode, plaintext tool traffic is only
	// delivered to its authenticated parties.
	c.send(authMsg(c.challenge))
	go c.readLoop()
}

// admit counts a connection against its address's cap.
func (s *Server) admit(ip string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.perIP[ip] >= s.cfg.Limits.MaxConnectionsPerIP {
		return false
	}
	s.perIP[ip]++
	return true
}

func (s *Server) release(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// forget is called once per connection when it ends.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	_, ok := s.conns[c]
	delete(s.conns, c)
	s.mu.Unlock()
	if ok {
		s.release(c.ip)
	}
}

func (s *Server) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops reading from every connection, lets the messages in hand
// finish (so every OK true is already durable), flushes the replies, closes
// the connections and then the store.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.SetReadDeadline(time.Now())
	}
	err := waitGroup(ctx, &s.readers)
	if err == nil {
		err = waitGroup(ctx, &s.writers)
	}
	for _, c := range conns {
		c.ws.Close()
	}
	s.audit.close()
	if qerr := waitGroup(ctx, &s.queries); qerr != nil {
		// Closing LMDB under a running read transaction would crash the
		// process; leaving it open is the lesser evil.
		return errors.Join(err, qerr)
	}
	s.commit.close() // syncs what is queued
	close(s.indexQ)
	<-s.indexDone
	s.search.close()
	s.order.close()
	// eventstore's LMDB QueryEvents closes its result channel inside the
	// read transaction, which ends a moment later: a query we saw finish
	// may still hold one. Closing the environment under it crashes
	// (measured: SIGSEGV in mdb_txn_commit). Give them that moment.
	time.Sleep(50 * time.Millisecond)
	s.store.Close()
	return err
}

func waitGroup(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("shutdown: connections did not finish in time")
	}
}

// clientIP is the TCP peer, or with trust_proxy the address the proxy saw:
// the last X-Forwarded-For entry, the one the trusted proxy appended.
func clientIP(r *http.Request, trustProxy bool) string {
	if trustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			parts := strings.Split(xff, ",")
			return strings.TrimSpace(parts[len(parts)-1])
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// slogWriter adapts khatru's *log.Logger output to slog.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Debug(strings.TrimSpace(string(p)), "component", "khatru")
	return len(p), nil
}
