package nip98

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Build signs a NIP-98 token for a request to url with the given method and
// returns it as standard base64 of the event JSON. A payload tag is added
// when body is non-empty. url must be absolute http(s); it is signed as
// given, and the verifier normalises it.
func Build(ctx context.Context, s signer.Signer, url, method string, body []byte) (string, error) {
	return buildAt(ctx, s, url, method, body, nostr.Now())
}

// BuildHeader is [Build] returning the full Authorization header value,
// "Nostr <token>".
func BuildHeader(ctx context.Context, s signer.Signer, url, method string, body []byte) (string, error) {
	tok, err := Build(ctx, s, url, method, body)
	if err != nil {
		return "", err
	}
	return "Nostr " + tok, nil
}

func buildAt(ctx context.Context, s signer.Signer, url, method string, body []byte, at nostr.Timestamp) (string, error) {
	if s == nil {
		return "", errors.New("nip98: build: nil signer")
	}
	if _, err := normalizeURL(url); err != nil {
		return "", fmt.Errorf("nip98: build: %w", err)
	}
	if method == "" {
		return "", errors.New("nip98: build: empty method")
	}
	ev := nostr.Event{
		Kind:      nostr.KindHTTPAuth,
		CreatedAt: at,
		Tags:      nostr.Tags{{"u", url}, {"method", method}},
	}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		ev.Tags = append(ev.Tags, nostr.Tag{"payload", hex.EncodeToString(sum[:])})
	}
	return encodeSigned(ctx, s, &ev)
}

// encodeSigned signs ev and returns its base64 JSON.
func encodeSigned(ctx context.Context, s signer.Signer, ev *nostr.Event) (string, error) {
	if err := s.SignEvent(ctx, ev); err != nil {
		return "", fmt.Errorf("nip98: build: %w", err)
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("nip98: build: encode event: %w", err)
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}
