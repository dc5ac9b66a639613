package relay

import "net/http"

// management serves NIP-86 (placeholder until nip98 lands).
type management struct{ s *Server }

func newManagement(s *Server) *management { return &management{s: s} }

func (m *management) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "not yet", http.StatusNotImplemented)
}
