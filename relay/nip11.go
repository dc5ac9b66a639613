package relay

import (
	"encoding/json"
	"net/http"

	"github.com/nbd-wtf/go-nostr/nip11"
)

// Version is toolbus's version, set at build time with
// -ldflags "-X toolbus/relay.Version=…".
var Version = "dev"

// supportedNIPs lists what the relay implements.
var supportedNIPs = []any{1, 9, 11, 29, 40, 42, 43, 50, 70, 86}

// Info returns the NIP-11 document; its limitation block is built from the
// same config values the engine enforces.
func (s *Server) Info() nip11.RelayInformationDocument {
	l := s.cfg.Limits
	return nip11.RelayInformationDocument{
		Name:          s.cfg.Info.Name,
		Description:   s.cfg.Info.Description,
		PubKey:        s.key.PublicKey(),
		Contact:       s.cfg.Info.Contact,
		SupportedNIPs: supportedNIPs,
		Software:      "toolbus",
		Version:       Version,
		Limitation: &nip11.RelayLimitationDocument{
			MaxMessageLength: l.MaxMessageBytes,
			MaxSubscriptions: l.MaxSubscriptions,
			MaxLimit:         l.MaxLimit,
			DefaultLimit:     l.MaxLimit,
			MaxSubidLength:   64,
			MaxEventTags:     l.MaxEventTags,
			MaxContentLength: l.MaxContentBytes,
			AuthRequired:     false,
			RestrictedWrites: !s.acl.Open(),
		},
	}
}

func (s *Server) serveNIP11(w http.ResponseWriter, _ *http.Request) {
	writeCORS(w)
	w.Header().Set("Content-Type", "application/nostr+json")
	_ = json.NewEncoder(w).Encode(s.Info())
}

// writeCORS lets browser clients read NIP-11 and call NIP-86.
func writeCORS(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
}
