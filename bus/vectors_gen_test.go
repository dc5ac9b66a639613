package bus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// The JSON-RPC messages of the vectors, as a JavaScript client would
// JSON.stringify them.
const (
	vectorRequest  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	vectorResponse = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`
)

// writeVectors regenerates the vector files. Signatures are deterministic,
// but the NIP-44 nonce is random, so bus-giftwrap.json changes on every run:
// regenerate only when the format changes.
func writeVectors(t *testing.T) {
	client, server, wrapKey := vectorIdentities(t)
	keys := vectorKeys{
		Warning:      vectorWarning,
		ClientSecret: client.secret, ClientPubKey: client.PublicKey(),
		ServerSecret: server.secret, ServerPubKey: server.PublicKey(),
	}
	req := signVector(t, client, NewMessage([]byte(vectorRequest), server.PublicKey(), ""), vectorTime)
	resp := signVector(t, server, NewMessage([]byte(vectorResponse), client.PublicKey(), req.ID), vectorTime+1)
	plaintext := marshal(t, req)
	wrap, err := wrapWith([]byte(plaintext), server.PublicKey(), KindGiftWrap, wrapKey.secret, vectorTime+2)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := nip44.GenerateConversationKey(server.PublicKey(), wrapKey.secret)
	if err != nil {
		t.Fatal(err)
	}
	wrapKeys := keys
	wrapKeys.WrapSecret, wrapKeys.WrapPubKey = wrapKey.secret, wrapKey.PublicKey()
	wrapKeys.ConversationKey = hex.EncodeToString(ck[:])

	writeVector(t, "bus-request.json", vectorFile{
		Description: "tools/call of tool echo with {\"text\":\"hi\"}, JSON-RPC id 1, from client to server (kind 25910, unencrypted form)",
		Keys:        keys, Event: rawEvent(t, req),
	})
	writeVector(t, "bus-response.json", vectorFile{
		Description: "CallToolResult with text \"hi\" answering bus-request.json: p = client, e = request event id (kind 25910)",
		Keys:        keys, Event: rawEvent(t, resp),
	})
	writeVector(t, "bus-giftwrap.json", vectorFile{
		Description: "bus-request.json NIP-44 v2 encrypted to the server by the wrap key, kind 1059; plaintext is the exact encrypted bytes",
		Keys:        wrapKeys, Plaintext: plaintext, Event: rawEvent(t, wrap),
	})
}

func signVector(t *testing.T, k wireKey, ev nostr.Event, at nostr.Timestamp) *nostr.Event {
	t.Helper()
	ev.CreatedAt = at
	if err := k.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

// rawEvent renders ev in NIP-01 field order, which reads better than
// go-nostr's kind-first order.
func rawEvent(t *testing.T, ev *nostr.Event) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(struct {
		ID        string     `json:"id"`
		PubKey    string     `json:"pubkey"`
		CreatedAt int64      `json:"created_at"`
		Kind      int        `json:"kind"`
		Tags      nostr.Tags `json:"tags"`
		Content   string     `json:"content"`
		Sig       string     `json:"sig"`
	}{ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, ev.Tags, ev.Content, ev.Sig})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeVector(t *testing.T, name string, v vectorFile) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vectorDir, name), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
