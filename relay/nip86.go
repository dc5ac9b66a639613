package relay

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/nip98"
	"toolbus/signer"
)

// management serves NIP-86 relay management over HTTP. Every call carries a
// NIP-98 token whose u is the relay's public http(s) URL, whose payload tag
// hashes the body (required: a token must not authorise another call), and
// which is single-use (replay cache). Only admins from the config may call.
type management struct {
	s      *Server
	replay *nip98.ReplayCache
}

// maxManagementBody caps a NIP-86 request body.
const maxManagementBody = 64 << 10

func newManagement(s *Server) *management {
	return &management{s: s, replay: nip98.NewReplayCache(2*nip98.DefaultWindow+time.Minute, 100_000)}
}

type rpcRequest struct {
	Method string `json:"method"`
	Params []any  `json:"params"`
}

type rpcResponse struct {
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// pubkeyReason is one row of listallowedpubkeys / listbannedpubkeys.
type pubkeyReason struct {
	PubKey string `json:"pubkey"`
	Reason string `json:"reason,omitempty"`
}

var managementMethods = []string{"supportedmethods", "allowpubkey", "unallowpubkey",
	"banpubkey", "unbanpubkey", "listallowedpubkeys", "listbannedpubkeys", "listauditevents"}

func (m *management) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeCORS(w)
	w.Header().Set("Content-Type", "application/nostr+json+rpc")
	if r.Method != http.MethodPost {
		writeRPC(w, http.StatusMethodNotAllowed, rpcResponse{Error: "invalid: NIP-86 calls are POST"})
		return
	}
	res, err := nip98.Verify(r, nip98.Options{ExpectedURL: m.s.httpURL, RequirePayload: true,
		MaxBody: maxManagementBody, Replay: m.replay})
	if err != nil {
		m.s.log.Info("nip-86 auth refused", "err", err, "ip", clientIP(r, m.s.cfg.TrustProxy))
		w.Header().Set("WWW-Authenticate", "Nostr")
		writeRPC(w, http.StatusUnauthorized, rpcResponse{Error: "auth-required: " + err.Error()})
		return
	}
	if !m.s.acl.IsAdmin(res.PubKey) {
		writeRPC(w, http.StatusForbidden, rpcResponse{Error: "restricted: only workspace admins may manage the relay"})
		return
	}
	var req rpcRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxManagementBody)).Decode(&req); err != nil {
		writeRPC(w, http.StatusBadRequest, rpcResponse{Error: "invalid: body is not a JSON-RPC request"})
		return
	}
	result, err := m.call(req)
	if err != nil {
		writeRPC(w, http.StatusOK, rpcResponse{Error: err.Error()})
		return
	}
	m.s.log.Info("nip-86", "method", req.Method, "admin", res.PubKey)
	writeRPC(w, http.StatusOK, rpcResponse{Result: result})
}

func writeRPC(w http.ResponseWriter, status int, resp rpcResponse) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

// call dispatches one method. Errors are returned to the admin as is.
func (m *management) call(req rpcRequest) (any, error) {
	acl := m.s.acl
	switch req.Method {
	case "supportedmethods":
		return managementMethods, nil
	case "listallowedpubkeys":
		return rows(acl.Allowed()), nil
	case "listbannedpubkeys":
		return rows(acl.Banned()), nil
	case "listauditevents":
		return m.s.auditQuery(req.Params)
	}
	pk, reason, err := pubkeyParams(req.Params)
	if err != nil {
		return nil, err
	}
	switch req.Method {
	case "allowpubkey":
		err = acl.Allow(pk, reason)
	case "unallowpubkey":
		err = acl.Unallow(pk)
	case "banpubkey":
		err = acl.Ban(pk, reason)
	case "unbanpubkey":
		err = acl.Unban(pk)
	default:
		return nil, errors.New("unsupported: method " + req.Method + " is not supported")
	}
	if err != nil {
		return nil, errors.New("error: could not save the change")
	}
	return true, nil
}

func pubkeyParams(params []any) (string, string, error) {
	if len(params) == 0 {
		return "", "", errors.New("invalid: missing pubkey parameter")
	}
	raw, _ := params[0].(string)
	pk, err := signer.ParsePubKey(raw)
	if err != nil {
		return "", "", errors.New("invalid: " + err.Error())
	}
	var reason string
	if len(params) > 1 {
		reason, _ = params[1].(string)
	}
	return pk, reason, nil
}

func rows(m map[string]string) []pubkeyReason {
	out := make([]pubkeyReason, 0, len(m))
	for pk, r := range m {
		out = append(out, pubkeyReason{PubKey: pk, Reason: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PubKey < out[j].PubKey })
	return out
}

// maxAuditRows caps one listauditevents answer.
const maxAuditRows = 1000

// auditQuery answers listauditevents: params [filter?, limit?], newest first.
func (s *Server) auditQuery(params []any) (any, error) {
	if s.audit == nil {
		return nil, errors.New("unsupported: the audit log is off (tool_bus.audit = false)")
	}
	var f nostr.Filter
	if len(params) > 0 && params[0] != nil {
		raw, _ := json.Marshal(params[0])
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, errors.New("invalid: first parameter must be a Nostr filter")
		}
	}
	limit := maxAuditRows
	if len(params) > 1 {
		if n, ok := params[1].(float64); ok && n > 0 && int(n) < limit {
			limit = int(n)
		}
	}
	recs, err := s.audit.query(f, limit)
	if err != nil {
		s.log.Error("audit query failed", "err", err)
		return nil, errors.New("error: could not read the audit log")
	}
	return recs, nil
}
