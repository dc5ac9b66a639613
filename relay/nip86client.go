package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"toolbus/nip98"
	"toolbus/signer"
)

// ManagementError is a NIP-86 call that reached the relay and was refused.
type ManagementError struct {
	Status  int    // HTTP status
	Message string // the relay's error text (with its NIP-01 style prefix)
}

func (e *ManagementError) Error() string {
	return fmt.Sprintf("relay refused (HTTP %d): %s", e.Status, e.Message)
}

// Manage calls a NIP-86 method on the relay at httpURL (its public http(s)
// URL) as s, with a fresh single-use NIP-98 token bound to the body.
func Manage(ctx context.Context, httpURL string, s signer.Signer, method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(rpcRequest{Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	auth, err := nip98.BuildHeader(ctx, s, httpURL, http.MethodPost, body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, httpURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/nostr+json+rpc")
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("nip-86 %s: %w", method, err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &ManagementError{Status: resp.StatusCode, Message: "non-JSON response"}
	}
	if resp.StatusCode != http.StatusOK || out.Error != "" {
		return nil, &ManagementError{Status: resp.StatusCode, Message: out.Error}
	}
	return out.Result, nil
}
