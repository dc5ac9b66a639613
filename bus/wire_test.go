package bus

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"
)

func TestNewMessageTagOrder(t *testing.T) {
	const server, request = "aa", "bb"
	ev := NewMessage([]byte(`{"x":1}`), server, request, nostr.Tag{TagSupportEncryption}, nostr.Tag{TagName, "n"})
	want := nostr.Tags{{"p", server}, {"e", request}, {TagSupportEncryption}, {TagName, "n"}}
	if !reflect.DeepEqual(ev.Tags, want) {
		t.Fatalf("tags = %v, want %v", ev.Tags, want)
	}
	if ev.Kind != KindMessage || ev.Content != `{"x":1}` || ev.ID != "" || ev.Sig != "" {
		t.Fatalf("event = %+v, want an unsigned kind-%d message", ev, KindMessage)
	}
	if d := time.Since(ev.CreatedAt.Time()); d < -2*time.Second || d > 2*time.Second {
		t.Fatalf("created_at is %v away from now", d)
	}
	noReply := NewMessage(nil, server, "")
	if !reflect.DeepEqual(noReply.Tags, nostr.Tags{{"p", server}}) {
		t.Fatalf("without replyTo, tags = %v, want only p", noReply.Tags)
	}
}

func TestTagAccessors(t *testing.T) {
	ev := &nostr.Event{Tags: nostr.Tags{{"e"}, {"p", "first"}, {"p", "second"}, {"e", "req"}, {TagSupportEncryption}}}
	if got := Recipient(ev); got != "first" {
		t.Errorf("Recipient = %q", got)
	}
	if got := ReplyTo(ev); got != "req" {
		t.Errorf("ReplyTo = %q, want the first e tag with a value", got)
	}
	if !HasTag(ev, TagSupportEncryption) || HasTag(ev, TagSupportEncryptionEphemeral) {
		t.Error("HasTag wrong")
	}
	if TagValue(ev, TagSupportEncryption) != "" || TagValue(nil, "p") != "" || HasTag(nil, "p") {
		t.Error("valueless tag or nil event must give empty results")
	}
}

func TestKindPredicates(t *testing.T) {
	for kind, want := range map[int][2]bool{
		KindMessage: {true, false}, KindGiftWrap: {true, true}, KindEphemeralGiftWrap: {true, true},
		KindServerAnnouncement: {false, false}, 1: {false, false}, 14: {false, false},
	} {
		if IsBusKind(kind) != want[0] || IsWrapKind(kind) != want[1] {
			t.Errorf("kind %d: IsBusKind %v IsWrapKind %v, want %v", kind, IsBusKind(kind), IsWrapKind(kind), want)
		}
	}
}

func TestDecodeRequestAndResponse(t *testing.T) {
	req := &nostr.Event{Kind: KindMessage, Content: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`}
	msg, err := Decode(req)
	r, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || r.Method != "tools/call" || r.ID.Raw() != int64(1) || string(r.Params) != `{"name":"echo"}` {
		t.Fatalf("Decode(request) = %#v, %v", msg, err)
	}
	note := &nostr.Event{Kind: KindMessage, Content: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	if msg, err := Decode(note); err != nil || msg.(*jsonrpc.Request).IsCall() {
		t.Fatalf("Decode(notification) = %#v, %v", msg, err)
	}
	resp := &nostr.Event{Kind: KindMessage, Content: ` {"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}} `}
	msg, err = Decode(resp)
	if rr, ok := msg.(*jsonrpc.Response); err != nil || !ok || rr.ID.Raw() != "a" || rr.Error == nil {
		t.Fatalf("Decode(error response) = %#v, %v", msg, err)
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for name, content := range map[string]string{
		"empty":           ``,
		"not json":        `hello`,
		"truncated":       `{"jsonrpc":"2.0","id":1,`,
		"trailing data":   `{"jsonrpc":"2.0","id":1,"method":"x"} {}`,
		"array (batch)":   `[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		"string":          `"x"`,
		"null":            `null`,
		"wrong version":   `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		"no version":      `{"id":1,"method":"x"}`,
		"object id":       `{"jsonrpc":"2.0","id":{},"method":"x"}`,
		"empty method":    `{"jsonrpc":"2.0","id":1,"method":""}`,
		"null method":     `{"jsonrpc":"2.0","id":1,"method":null}`,
		"bare response":   `{"jsonrpc":"2.0","id":1}`,
		"result and err":  `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
		"response, no id": `{"jsonrpc":"2.0","result":{}}`,
		"deep nesting":    `{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	} {
		msg, err := Decode(&nostr.Event{Kind: KindMessage, Content: content})
		if !errors.Is(err, ErrBadMessage) || msg != nil {
			t.Errorf("%s: Decode = %#v, %v; want ErrBadMessage", name, msg, err)
		}
	}
	// A batch gets its own message: peers may legitimately try one.
	batch := &nostr.Event{Kind: KindMessage, Content: `[{"jsonrpc":"2.0","id":1,"method":"x"}]`}
	if _, err := Decode(batch); err == nil || !strings.Contains(err.Error(), "batch") {
		t.Errorf("Decode(batch) error %v should say batches are unsupported", err)
	}
	ok := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	for _, ev := range []*nostr.Event{nil, {Kind: KindGiftWrap, Content: ok}, {Kind: KindToolsList, Content: ok}} {
		if _, err := Decode(ev); !errors.Is(err, ErrBadMessage) {
			t.Errorf("Decode(%v) = %v, want ErrBadMessage for a non-message event", ev, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"bad","data":[1]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.5}}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"x"}`, `[]`, `{`, "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		msg, err := Decode(&nostr.Event{Kind: KindMessage, Content: content})
		if err != nil {
			if msg != nil || !errors.Is(err, ErrBadMessage) {
				t.Fatalf("failed Decode returned (%#v, %v)", msg, err)
			}
			return
		}
		if !json.Valid([]byte(content)) {
			t.Fatalf("accepted invalid JSON %q", content)
		}
		// What Decode accepts must survive a round trip as the same kind
		// of message: the session will re-encode it.
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("accepted %q but cannot re-encode it: %v", content, err)
		}
		again, err := Decode(&nostr.Event{Kind: KindMessage, Content: string(data)})
		if err != nil || reflect.TypeOf(again) != reflect.TypeOf(msg) {
			t.Fatalf("round trip of %q: %s -> (%T, %v)", content, data, again, err)
		}
	})
}
