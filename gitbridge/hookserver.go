package gitbridge

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Environment variables that carry the callback to the hooks. git passes
// receive-pack's environment on to its hooks; nothing else sees them.
const (
	envHookURL   = "TOOLBUS_GIT_HOOK_URL"
	envHookToken = "TOOLBUS_GIT_HOOK_TOKEN"
)

// maxHookBody caps a hook's callback request (ref updates as JSON).
const maxHookBody = 8 << 20

// hookServer is the loopback listener hooks call back to. Each push gets a
// random token; only its hash is kept, as the map key, so a lookup does not
// compare secrets byte by byte.
type hookServer struct {
	b        *Bridge
	srv      *http.Server
	url      string
	mu       sync.Mutex
	sessions map[[32]byte]*pushSession
}

// pushSession is one receive-pack run as the hooks see it.
type pushSession struct {
	h      *hookServer
	ctx    context.Context
	rt     route
	dir    string
	pusher string
	key    [32]byte
	token  string
	mu     sync.Mutex
	done   []RefUpdate // from post-receive: what actually changed
}

func startHookServer(b *Bridge) (*hookServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hookServer{b: b, url: "http://" + ln.Addr().String() + "/hook",
		sessions: make(map[[32]byte]*pushSession)}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

func (h *hookServer) close() error { return h.srv.Close() }

// open registers a push and returns its session; closeSession ends it.
func (h *hookServer) open(ctx context.Context, rt route, dir, pusher string) *pushSession {
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand panics instead)
	s := &pushSession{h: h, ctx: ctx, rt: rt, dir: dir, pusher: pusher, token: hex.EncodeToString(raw[:])}
	s.key = sha256.Sum256([]byte(s.token))
	h.mu.Lock()
	h.sessions[s.key] = s
	h.mu.Unlock()
	return s
}

func (s *pushSession) closeSession() {
	s.h.mu.Lock()
	delete(s.h.sessions, s.key)
	s.h.mu.Unlock()
}

// env is what receive-pack (and so its hooks) gets to reach the session.
func (s *pushSession) env() []string {
	return []string{envHookURL + "=" + s.h.url, envHookToken + "=" + s.token}
}

func (s *pushSession) applied() []RefUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RefUpdate(nil), s.done...)
}

// hookRequest is what a hook sends.
type hookRequest struct {
	Hook    string      `json:"hook"`
	Updates []RefUpdate `json:"updates"`
	// Quarantine is GIT_QUARANTINE_PATH: during pre-receive the pushed
	// objects are only there, not yet in the repository.
	Quarantine string `json:"quarantine,omitempty"`
}

// hookResponse is the bridge's verdict; Message is shown to the pusher.
type hookResponse struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// ServeHTTP answers a hook: the token picks the push session, and the
// verdict travels back as JSON.
func (h *hookServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	h.mu.Lock()
	s := h.sessions[sha256.Sum256([]byte(tok))]
	h.mu.Unlock()
	if r.Method != http.MethodPost || !ok || s == nil {
		http.Error(w, "unknown push", http.StatusUnauthorized)
		return
	}
	var req hookRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxHookBody)).Decode(&req); err != nil {
		http.Error(w, "bad hook request", http.StatusBadRequest)
		return
	}
	var resp hookResponse
	switch req.Hook {
	case "pre-receive":
		resp = s.h.b.preReceive(s, req)
	case "post-receive":
		s.mu.Lock()
		s.done = append(s.done, req.Updates...)
		s.mu.Unlock()
		resp = hookResponse{OK: true}
	default:
		resp = hookResponse{Message: "unknown hook " + req.Hook}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
