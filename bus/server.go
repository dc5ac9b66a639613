package bus

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/ratelimit"
	"toolbus/signer"
)

// EncryptionMode says which tool traffic a Server accepts.
type EncryptionMode int

const (
	// EncryptionOptional accepts plaintext and gift-wrapped calls and
	// answers each in the kind it came in.
	EncryptionOptional EncryptionMode = iota
	// EncryptionRequired ignores plaintext calls.
	EncryptionRequired
	// EncryptionDisabled ignores gift-wrapped calls.
	EncryptionDisabled
)

// ServerOptions configures a Server. A nil *ServerOptions means defaults:
// optional encryption, callers = the workspace members, no quota.
type ServerOptions struct {
	// Name, About and Website describe the worker in its announcement and
	// in the discovery tags of its first reply to each caller.
	Name, About, Website string
	// Encryption says whether plaintext and/or gift-wrapped calls are served.
	Encryption EncryptionMode
	// Allow, when non-empty, is the fixed list of caller pubkeys (hex).
	// It narrows the workspace, it cannot grant: when RelayPubKey is set
	// the worker still follows the relay's membership list, and once a list
	// has been seen a caller must be both on Allow and a current member (a
	// removed or banned member on Allow is refused). If no list has come
	// by the subscription's first EOSE (a relay that keeps none, or no
	// RelayPubKey), Allow alone decides; calls before that EOSE are held for it.
	// When empty, callers are the workspace members, learned from the
	// relay's NIP-43 membership list (kind 13534 by RelayPubKey) and kept
	// current as it changes.
	Allow []string
	// AllowAnyone serves every caller (an open, public tool).
	AllowAnyone bool
	// RelayPubKey is the relay's key, whose membership list is trusted.
	// Required when Allow is empty and AllowAnyone is false; with Allow it
	// lets the worker refuse allowlisted callers who are no longer members.
	RelayPubKey string
	// QuotaPerSecond and QuotaBurst budget tools/call per caller (token
	// bucket); zero QuotaPerSecond means no quota.
	QuotaPerSecond float64
	QuotaBurst     int
	// Announce publishes the 11316/11317 (and resource/prompt list)
	// announcements, and republishes them when the tool list changes.
	Announce bool
	// Concurrency bounds calls being unwrapped and dispatched at once.
	// Default 64.
	Concurrency int
	// SessionIdle closes a caller's MCP session after this long unused.
	// Default 10 minutes.
	SessionIdle time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Server puts an MCP server on the bus: it receives calls addressed to its
// key, checks who is calling, runs them through the MCP server (one session
// per caller) and publishes the replies.
type Server struct {
	key    signer.Keyer
	mcp    *mcp.Server
	opts   ServerOptions
	log    *slog.Logger
	conn   *Conn
	self   string
	since  nostr.Timestamp
	sem    chan struct{}
	seen   *Dedupe
	quota  *ratelimit.Limiter
	nextID atomic.Int64

	members atomic.Pointer[memberSet]
	allow   map[string]bool
	// Until the first EOSE of the worker's subscription (by then the relay
	// has sent its stored membership list, if it keeps one), calls that
	// arrive with no list yet are parked rather than judged against none.
	parkMu  sync.Mutex
	settled bool
	parked  []*nostr.Event

	mu       sync.Mutex
	sessions map[string]*callerSession

	ready     chan struct{}
	readyOnce sync.Once

	announceMu sync.Mutex
	lastAnnAt  map[int]nostr.Timestamp // per kind: replaceable events need increasing created_at
}

// NewServer returns a Server answering as key with the tools of srv.
func NewServer(key signer.Keyer, srv *mcp.Server, opts *ServerOptions) (*Server, error) {
	o := ServerOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 64
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 10 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if len(o.Allow) == 0 && !o.AllowAnyone && o.RelayPubKey == "" {
		return nil, errors.New("bus: server needs Allow, AllowAnyone or RelayPubKey (to follow the workspace members)")
	}
	s := &Server{key: key, mcp: srv, opts: o, log: o.Logger, self: key.PublicKey(),
		sem: make(chan struct{}, o.Concurrency), seen: NewDedupe(100_000, 10*time.Minute),
		sessions: map[string]*callerSession{}, allow: map[string]bool{}, lastAnnAt: map[int]nostr.Timestamp{},
		ready: make(chan struct{})}
	for _, pk := range o.Allow {
		s.allow[pk] = true
	}
	if o.QuotaPerSecond > 0 {
		s.quota = ratelimit.New(o.QuotaPerSecond, max(o.QuotaBurst, 1), 100_000)
	}
	return s, nil
}

// Ready is closed once Serve is subscribed, has read the membership list
// and has announced the server.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// PublicKey is the worker's public key (hex): where callers address calls.
func (s *Server) PublicKey() string { return s.self }

// Serve subscribes to calls on conn, announces the server, and serves until
// ctx ends. conn should authenticate as the server's key (so plaintext
// calls reach it). Calls sent while the worker was briefly disconnected are
// served when it reconnects (the relay's mailbox replays them).
func (s *Server) Serve(ctx context.Context, conn *Conn) error {
	s.conn = conn
	s.since = nostr.Now() - 2
	sub, err := conn.Subscribe(ctx, s.filters, s.onEvent, nil)
	if err != nil {
		return err
	}
	defer sub.Close()
	select {
	case <-sub.EOSE():
		parked, snap := s.settle()
		for _, ev := range parked {
			s.dispatch(ev, snap)
		}
	case <-sub.Done():
		return sub.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.opts.Announce {
		if err := s.startAnnouncer(ctx); err != nil {
			s.log.Warn("announcement failed", "err", err)
		}
	}
	go s.reapSessions(ctx)
	s.readyOnce.Do(func() { close(s.ready) })
	select {
	case <-ctx.Done():
	case <-sub.Done():
		if err := sub.Err(); err != nil {
			return err
		}
	}
	s.closeSessions()
	return ctx.Err()
}

// filters are the worker's subscription: the relay's membership list and
// the calls addressed to it on one subscription, so that a revocation is
// seen before any call sent after it. The list comes first because the
// relay sends stored events filter by filter: calls replayed from its
// mailbox are then judged against the current list, not against none.
func (s *Server) filters() nostr.Filters {
	since := s.since
	calls := nostr.Filter{Kinds: []int{KindMessage, KindGiftWrap, KindEphemeralGiftWrap},
		Tags: nostr.TagMap{"p": {s.self}}, Since: &since}
	if !s.followsMembers() {
		return nostr.Filters{calls}
	}
	return nostr.Filters{{Kinds: []int{KindMembershipList}, Authors: []string{s.opts.RelayPubKey}}, calls}
}

// followsMembers: every worker that is not open to anyone and knows the
// relay's key follows its membership list, with or without an allowlist,
// so that removing a member reaches workers that list them.
func (s *Server) followsMembers() bool { return !s.opts.AllowAnyone && s.opts.RelayPubKey != "" }

// onEvent runs on the connection's single delivery goroutine, in relay
// order. Membership updates apply at once; calls take a snapshot of the
// membership as of their arrival and go to a bounded pool of goroutines.
func (s *Server) onEvent(ev *nostr.Event) {
	if ev.Kind == KindMembershipList {
		if ev.PubKey == s.opts.RelayPubKey {
			next := parseMembers(ev)
			if cur := s.members.Load(); cur == nil || next.at >= cur.at {
				s.members.Store(next)
			}
		}
		return
	}
	if !IsBusKind(ev.Kind) {
		return
	}
	snap := s.members.Load()
	if snap == nil && s.park(ev) {
		return
	}
	s.dispatch(ev, snap)
}

// dispatch hands a call to the bounded pool, judged against snap.
func (s *Server) dispatch(ev *nostr.Event, snap *memberSet) {
	s.sem <- struct{}{}
	go func() {
		defer func() { <-s.sem }()
		s.handle(ev, snap)
	}()
}

// maxParked bounds the calls held at start-up; past it they are dropped
// (the caller times out, or the relay's mailbox replays them).
const maxParked = 4096

// park holds a call that arrived before any membership list, until the
// subscription's first EOSE (a live call can overtake the stored list at
// start-up). Judged against no list it would be refused although its
// caller is a member or, with an allowlist, let through although they were
// removed. Parked calls take no pool slot: the delivery goroutine, which
// parks them, must stay free to deliver the list and the EOSE. It reports
// false when the call should be dispatched now.
func (s *Server) park(ev *nostr.Event) bool {
	if !s.followsMembers() {
		return false
	}
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	if s.settled {
		return false
	}
	if len(s.parked) >= maxParked {
		s.log.Warn("dropping a call that arrived before the membership list: too many waiting", "event", ev.ID)
		return true
	}
	s.parked = append(s.parked, ev)
	return true
}

// settle ends parking at the first EOSE and returns the parked calls with
// the membership they are to be judged against: the list as of now, or
// none when the relay keeps none (then an allowlist alone decides).
func (s *Server) settle() ([]*nostr.Event, *memberSet) {
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	s.settled = true
	parked := s.parked
	s.parked = nil
	return parked, s.members.Load()
}

// allowed decides whether caller may use this worker, against the
// membership snap taken when the call arrived (nil: no list seen yet).
func (s *Server) allowed(caller string, snap *memberSet) bool {
	switch {
	case s.opts.AllowAnyone:
		return true
	case len(s.allow) > 0:
		// The allowlist narrows the members; only a relay that has never
		// shown a list leaves the decision to the allowlist alone.
		return s.allow[caller] && (snap == nil || snap.has(caller))
	default:
		return snap.has(caller) // nil snapshot (no list yet) allows nobody
	}
}

// session returns the caller's MCP session, opening it on first use. An
// initialize always starts a new session: the caller (re)connected and
// expects a handshake, which an initialised session would refuse.
func (s *Server) session(ctx context.Context, caller string, initialize bool) (*callerSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.sessions[caller]; ok {
		if !initialize {
			return cs, nil
		}
		cs.ss.Close()
		delete(s.sessions, caller)
	}
	cs, err := newCallerSession(context.WithoutCancel(ctx), s, caller, initialize)
	if err != nil {
		return nil, err
	}
	s.sessions[caller] = cs
	return cs, nil
}

// reapSessions closes sessions unused for SessionIdle.
func (s *Server) reapSessions(ctx context.Context) {
	tick := time.NewTicker(s.opts.SessionIdle / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			cutoff := time.Now().Add(-s.opts.SessionIdle).UnixNano()
			s.mu.Lock()
			for pk, cs := range s.sessions {
				if cs.used.Load() < cutoff {
					cs.ss.Close()
					delete(s.sessions, pk)
				}
			}
			s.mu.Unlock()
		}
	}
}

func (s *Server) closeSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pk, cs := range s.sessions {
		cs.ss.Close()
		delete(s.sessions, pk)
	}
}
