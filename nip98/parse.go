package nip98

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// MaxHeaderLen caps the Authorization header before any decoding, so a
// hostile client cannot make the verifier decode megabytes of base64.
const MaxHeaderLen = 16 << 10

// Decoders tried in turn: clients disagree on alphabet and padding.
var decoders = []*base64.Encoding{
	base64.StdEncoding.Strict(),
	base64.RawStdEncoding.Strict(),
	base64.URLEncoding.Strict(),
	base64.RawURLEncoding.Strict(),
}

// tokenFromRequest extracts the base64 event from the Authorization header.
func tokenFromRequest(r *http.Request, allowBasic bool) (string, error) {
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0 || strings.TrimSpace(values[0]) == "":
		return "", ErrMissing
	case len(values) > 1:
		return "", fmt.Errorf("%w: several authorization headers", ErrMalformed)
	}
	return parseAuthorization(values[0], allowBasic)
}

// parseAuthorization accepts "Nostr <token>" and, when allowBasic is set,
// "Basic base64(user:token)".
func parseAuthorization(h string, allowBasic bool) (string, error) {
	if len(h) > MaxHeaderLen {
		return "", fmt.Errorf("%w: header too long", ErrMalformed)
	}
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	rest = strings.TrimSpace(rest)
	switch {
	case strings.EqualFold(scheme, "Nostr") && rest != "":
		return rest, nil
	case strings.EqualFold(scheme, "Basic") && allowBasic && rest != "":
		creds, err := decodeBase64(rest)
		if err != nil {
			return "", err
		}
		_, pass, ok := strings.Cut(string(creds), ":")
		if !ok || pass == "" {
			return "", fmt.Errorf("%w: basic credentials without password", ErrMalformed)
		}
		return pass, nil
	}
	return "", fmt.Errorf("%w: unsupported scheme", ErrMalformed)
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range decoders {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: bad base64", ErrMalformed)
}

// decodeEvent turns a base64 token into an event whose fields have the
// shapes NIP-01 requires. It does not verify the signature.
func decodeEvent(token string) (*nostr.Event, error) {
	raw, err := decodeBase64(token)
	if err != nil {
		return nil, err
	}
	var ev nostr.Event
	// encoding/json validates the whole document (no trailing garbage)
	// before handing it to the event's own decoder.
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("%w: bad event json", ErrMalformed)
	}
	if !signer.IsLowerHex(ev.PubKey, 64) || !signer.IsLowerHex(ev.ID, 64) || !signer.IsLowerHex(ev.Sig, 128) {
		return nil, fmt.Errorf("%w: bad id, pubkey or sig field", ErrMalformed)
	}
	return &ev, nil
}

// singleTag returns the value of the tag called name. Several tags of the
// same name are refused rather than guessing which one the signer meant.
func singleTag(ev *nostr.Event, name string) (string, bool, error) {
	var val string
	found := false
	for _, t := range ev.Tags {
		if len(t) == 0 || t[0] != name {
			continue
		}
		if found || len(t) < 2 {
			return "", false, fmt.Errorf("%w: bad %s tag", ErrMalformed, name)
		}
		val, found = t[1], true
	}
	return val, found, nil
}
