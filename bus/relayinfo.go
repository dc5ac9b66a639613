package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"toolbus/signer"
)

// RelayPubKey fetches the relay's NIP-11 document and returns its pubkey:
// the key whose membership list (kind 13534) a worker trusts.
func RelayPubKey(ctx context.Context, relayURL string) (string, error) {
	httpURL := strings.Replace(strings.Replace(relayURL, "wss://", "https://", 1), "ws://", "http://", 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, httpURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("bus: relay information: %w", err)
	}
	defer resp.Body.Close()
	var doc struct {
		PubKey string `json:"pubkey"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return "", fmt.Errorf("bus: relay information is not NIP-11 JSON: %w", err)
	}
	pk, err := signer.ParsePubKey(doc.PubKey)
	if err != nil {
		return "", fmt.Errorf("bus: relay information has no valid pubkey: %w", err)
	}
	return pk, nil
}
