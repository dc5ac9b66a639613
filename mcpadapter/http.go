package mcpadapter

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/nip98"
)

// HTTPOptions configures the streamable HTTP endpoint.
type HTTPOptions struct {
	// Addr is the host:port the endpoint listens on; only requests whose
	// Host names it (or localhost/127.0.0.1 with its port, or PublicURL's
	// host) are served, which defeats DNS rebinding.
	Addr string
	// PublicURL, when set, is the URL clients use (and NIP-98's u), for an
	// endpoint reached through another name than its listen address.
	PublicURL string
	// RequireNIP98 demands a NIP-98 token (u = the endpoint URL) on every
	// request; only Allowed pubkeys pass.
	RequireNIP98 bool
	// Allowed are the pubkeys (hex) that may call with NIP-98.
	Allowed map[string]bool
}

// HTTPHandler serves the adapter over streamable HTTP in stateless mode:
// every request stands alone, as the 2026-07-28 protocol expects, and older
// clients still get their initialize handshake answered per request.
//
// Responses are SSE streams, not application/json: a stateless server has
// no standalone stream, so with JSONResponse go-sdk dropped the progress
// notifications of a running call (found by the MCP conformance suite's
// tools-call-with-progress). Clients must accept both types anyway.
func (a *Adapter) HTTPHandler(o HTTPOptions) http.Handler {
	// go-sdk refuses a request that arrives on loopback with a Host that is
	// not loopback, which is every request through a reverse proxy on the
	// same machine for PublicURL; hostGate below makes the same check with
	// the public host allowed, so go-sdk's is off only then.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return a.server },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: a.log,
			CrossOriginProtection:      http.NewCrossOriginProtection(),
			DisableLocalhostProtection: publicHost(o.PublicURL) != ""})
	var next http.Handler = h
	if o.RequireNIP98 {
		next = nip98Gate(o, h)
	}
	return hostGate(o.Addr, publicHost(o.PublicURL), next)
}

// publicHost is the Host header clients send for the public URL ("" when
// there is none or it does not parse).
func publicHost(public string) string {
	u, err := url.Parse(public)
	if public == "" || err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// hostGate refuses requests whose Host is not the listen address (or the
// public host): a web page that rebinds its DNS name to 127.0.0.1 still
// sends its own name.
func hostGate(addr, public string, next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(addr)
	allowed := map[string]bool{addr: true, "localhost:" + port: true, "127.0.0.1:" + port: true, "[::1]:" + port: true}
	if public != "" {
		allowed[public] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[strings.ToLower(r.Host)] {
			http.Error(w, "forbidden: unexpected Host header", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// nip98Gate requires a NIP-98 token from an allowed pubkey. The method is
// not checked (clients reuse a token across GET and POST of one session).
func nip98Gate(o HTTPOptions, next http.Handler) http.Handler {
	url := o.PublicURL
	if url == "" {
		url = "http://" + o.Addr
	}
	replay := nip98.NewReplayCache(0, 0)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := nip98.Verify(r, nip98.Options{ExpectedURL: url, URLMode: nip98.MatchPrefix,
			SkipMethod: true, Replay: replay})
		if err != nil {
			w.Header().Set("WWW-Authenticate", "Nostr")
			http.Error(w, "unauthorized: "+err.Error(), http.StatusUnauthorized)
			return
		}
		if !o.Allowed[res.PubKey] {
			http.Error(w, "forbidden: this pubkey may not use the adapter", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r.WithContext(nip98.WithPubKey(r.Context(), res.PubKey)))
	})
}
