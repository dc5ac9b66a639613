package bus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Regenerate with: go test ./bus -run TestVectors -update-vectors
// (a distinct name, so it cannot clash with other tests' -update flags).
var updateVectors = flag.Bool("update-vectors", false, "rewrite spec/vectors/bus-*.json")

const vectorDir = "../spec/vectors"

// Fixed vector clock: request, response, wrap one second apart.
const vectorTime nostr.Timestamp = 1_700_000_000

const vectorWarning = "TEST-ONLY keys: published, so anyone can sign and decrypt with them. Never use them for anything real."

// vectorKeys are the identities of a vector file.
type vectorKeys struct {
	Warning         string `json:"warning"`
	ClientSecret    string `json:"client_secret_key"`
	ClientPubKey    string `json:"client_pubkey"`
	ServerSecret    string `json:"server_secret_key"`
	ServerPubKey    string `json:"server_pubkey"`
	WrapSecret      string `json:"wrap_secret_key,omitempty"`
	WrapPubKey      string `json:"wrap_pubkey,omitempty"`
	ConversationKey string `json:"conversation_key,omitempty"`
}

// vectorFile is the shape of every bus-*.json file. Event is the signed
// event (a wrap for bus-giftwrap.json) as NIP-01 JSON.
type vectorFile struct {
	Description string          `json:"description"`
	Keys        vectorKeys      `json:"keys"`
	Plaintext   string          `json:"plaintext,omitempty"`
	Event       json.RawMessage `json:"event"`
}

func vectorIdentities(t *testing.T) (client, server, wrap wireKey) {
	return wireKeyFrom(t, fuzzClientKey), wireKeyFrom(t, fuzzServerKey), wireKeyFrom(t, fuzzWrapKey)
}

func TestVectors(t *testing.T) {
	if *updateVectors {
		writeVectors(t)
	}
	client, server, wrapKey := vectorIdentities(t)
	req, reqEv := loadVector(t, "bus-request.json")
	resp, respEv := loadVector(t, "bus-response.json")
	gw, wrap := loadVector(t, "bus-giftwrap.json")
	for _, v := range []vectorFile{req, resp, gw} {
		checkVectorKeys(t, v.Keys, client, server)
	}
	for name, ev := range map[string]*nostr.Event{"request": reqEv, "response": respEv, "wrap": wrap} {
		if ok, err := ev.CheckSignature(); !ev.CheckID() || !ok || err != nil {
			t.Fatalf("%s: id or signature does not verify", name)
		}
	}
	checkRequestVector(t, reqEv, client, server)
	checkResponseVector(t, respEv, reqEv, client, server)
	checkWrapVector(t, gw, wrap, reqEv, server, wrapKey)
}

func checkVectorKeys(t *testing.T, k vectorKeys, client, server wireKey) {
	t.Helper()
	if k.ClientSecret != client.secret || k.ServerSecret != server.secret ||
		k.ClientPubKey != client.PublicKey() || k.ServerPubKey != server.PublicKey() {
		t.Fatalf("vector keys %+v do not derive the expected public keys", k)
	}
}

func checkRequestVector(t *testing.T, ev *nostr.Event, client, server wireKey) {
	t.Helper()
	if ev.Kind != KindMessage || ev.PubKey != client.PublicKey() || Recipient(ev) != server.PublicKey() || ReplyTo(ev) != "" {
		t.Fatalf("request event has the wrong kind, author or tags: %v", ev)
	}
	msg, err := Decode(ev)
	r, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || r.Method != "tools/call" || r.ID.Raw() != int64(1) {
		t.Fatalf("request decodes to %#v, %v", msg, err)
	}
	var params struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &params); err != nil || params.Name != "echo" || params.Arguments["text"] != "hi" {
		t.Fatalf("request params %s", r.Params)
	}
}

func checkResponseVector(t *testing.T, ev, req *nostr.Event, client, server wireKey) {
	t.Helper()
	if ev.Kind != KindMessage || ev.PubKey != server.PublicKey() || Recipient(ev) != client.PublicKey() {
		t.Fatalf("response event has the wrong kind, author or recipient: %v", ev)
	}
	if ReplyTo(ev) != req.ID {
		t.Fatalf("response e tag %q, want the request id %s", ReplyTo(ev), req.ID)
	}
	msg, err := Decode(ev)
	r, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || r.ID.Raw() != int64(1) || r.Error != nil {
		t.Fatalf("response decodes to %#v, %v", msg, err)
	}
	var result struct {
		Content []struct{ Type, Text string } `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &result); err != nil || len(result.Content) != 1 ||
		result.Content[0].Type != "text" || result.Content[0].Text != "hi" {
		t.Fatalf("response result %s", r.Result)
	}
}

func checkWrapVector(t *testing.T, v vectorFile, wrap, req *nostr.Event, server, wrapKey wireKey) {
	t.Helper()
	if v.Keys.WrapSecret != wrapKey.secret || v.Keys.WrapPubKey != wrapKey.PublicKey() || wrap.PubKey != wrapKey.PublicKey() {
		t.Fatal("wrap key does not derive the wrap's pubkey")
	}
	if wrap.Kind != KindGiftWrap || !reflect.DeepEqual(wrap.Tags, nostr.Tags{{"p", server.PublicKey()}}) {
		t.Fatalf("wrap kind %d tags %v", wrap.Kind, wrap.Tags)
	}
	ck, err := nip44.GenerateConversationKey(server.PublicKey(), wrapKey.secret)
	if err != nil || hex.EncodeToString(ck[:]) != v.Keys.ConversationKey {
		t.Fatalf("conversation key mismatch (%v)", err)
	}
	if p, err := nip44.Decrypt(wrap.Content, ck); err != nil || p != v.Plaintext || p != marshal(t, req) {
		t.Fatalf("wrap plaintext differs from the file's plaintext or the serialised request (%v)", err)
	}
	inner, err := Unwrap(context.Background(), server, wrap)
	if err != nil || !reflect.DeepEqual(inner, req) {
		t.Fatalf("Unwrap = %+v, %v; want exactly the request event", inner, err)
	}
}

// loadVector reads a vector file and strictly parses its event.
func loadVector(t *testing.T, name string) (vectorFile, *nostr.Event) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ev, err := parseInner(v.Event)
	if err != nil {
		t.Fatalf("%s: event: %v", name, err)
	}
	return v, ev
}
