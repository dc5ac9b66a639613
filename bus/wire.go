package bus

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/nbd-wtf/go-nostr"
)

// Event kinds of the tool bus. The numbers are ContextVM's, so toolbus and
// ContextVM clients and servers can talk to each other.
const (
	// KindMessage is one MCP JSON-RPC message, in clear or inside a wrap.
	KindMessage = 25910
	// KindGiftWrap is an encrypted message the relay stores (NIP-59 kind).
	KindGiftWrap = 1059
	// KindEphemeralGiftWrap is an encrypted message the relay only forwards.
	KindEphemeralGiftWrap = 21059
	// KindServerAnnouncement is a server's MCP InitializeResult (replaceable).
	KindServerAnnouncement = 11316
	// KindToolsList is a server's tools/list result (replaceable).
	KindToolsList = 11317
	// KindResourcesList is a server's resources/list result (replaceable).
	KindResourcesList = 11318
	// KindResourceTemplatesList is a server's resources/templates/list result
	// (replaceable).
	KindResourceTemplatesList = 11319
	// KindPromptsList is a server's prompts/list result (replaceable).
	KindPromptsList = 11320
	// KindMembershipList is the relay-signed NIP-43 list of workspace members.
	KindMembershipList = 13534
)

// MaxPlaintext is the largest plaintext NIP-44 v2 encrypts, in bytes. It
// bounds the serialised inner event of a wrap, not just its content.
const MaxPlaintext = 65535

// Tag names. The support_* tags and the server metadata tags are discovery
// tags, sent on the first message of a session (client) or the first
// response (server).
const (
	// TagSupportEncryption says the sender accepts kind-1059 wraps.
	TagSupportEncryption = "support_encryption"
	// TagSupportEncryptionEphemeral says the sender accepts kind-21059 wraps.
	TagSupportEncryptionEphemeral = "support_encryption_ephemeral"
	// TagSupportOversizedTransfer says the sender can split messages too
	// large for one event (ContextVM's oversized transfer).
	TagSupportOversizedTransfer = "support_oversized_transfer"
	// TagName is a server's human-readable name.
	TagName = "name"
	// TagAbout is a server's description.
	TagAbout = "about"
	// TagWebsite is a server's website URL.
	TagWebsite = "website"
	// TagPicture is a server's picture URL.
	TagPicture = "picture"
)

// IsWrapKind reports whether kind is a gift wrap (1059 or 21059).
func IsWrapKind(kind int) bool {
	return kind == KindGiftWrap || kind == KindEphemeralGiftWrap
}

// IsBusKind reports whether kind carries tool-bus traffic: a message or a
// wrap of one. Announcements are not bus kinds; they are ordinary
// replaceable events.
func IsBusKind(kind int) bool {
	return kind == KindMessage || IsWrapKind(kind)
}

// NewMessage returns an unsigned kind-25910 event carrying content to
// recipient, created now. Its tags are ["p", recipient], then
// ["e", replyTo] when replyTo is not empty, then extra, in that order:
// ContextVM reads the first p and e tags.
func NewMessage(content []byte, recipient, replyTo string, extra ...nostr.Tag) nostr.Event {
	tags := make(nostr.Tags, 0, 2+len(extra))
	tags = append(tags, nostr.Tag{"p", recipient})
	if replyTo != "" {
		tags = append(tags, nostr.Tag{"e", replyTo})
	}
	tags = append(tags, extra...)
	return nostr.Event{
		Kind:      KindMessage,
		CreatedAt: nostr.Now(),
		Tags:      tags,
		Content:   string(content),
	}
}

// Recipient returns the value of ev's first p tag: whom it is addressed to.
func Recipient(ev *nostr.Event) string { return TagValue(ev, "p") }

// ReplyTo returns the value of ev's first e tag: the request it answers.
func ReplyTo(ev *nostr.Event) string { return TagValue(ev, "e") }

// HasTag reports whether ev has a tag named name, with or without a value
// (discovery tags such as ["support_encryption"] have none).
func HasTag(ev *nostr.Event, name string) bool {
	if ev == nil {
		return false
	}
	for _, tag := range ev.Tags {
		if len(tag) > 0 && tag[0] == name {
			return true
		}
	}
	return false
}

// TagValue returns the value of the first tag named name that has one, or "".
func TagValue(ev *nostr.Event, name string) string {
	if ev == nil {
		return ""
	}
	for _, tag := range ev.Tags {
		if len(tag) > 1 && tag[0] == name {
			return tag[1]
		}
	}
	return ""
}

// Decode parses the content of a kind-25910 event as a JSON-RPC 2.0 message:
// a *jsonrpc.Request (call or notification) or a *jsonrpc.Response. Content
// that is not one JSON object, not JSON-RPC 2.0, a request without a method,
// or a response with neither or both of result and error, is refused with
// [ErrBadMessage]; a peer's garbage must be an error, never a panic.
func Decode(ev *nostr.Event) (jsonrpc.Message, error) {
	if ev == nil || ev.Kind != KindMessage {
		return nil, fmt.Errorf("%w: not a kind-%d event", ErrBadMessage, KindMessage)
	}
	data := []byte(ev.Content)
	// The SDK decoder ignores anything after the first value and accepts
	// non-objects in odd ways; a strict validity check first closes both.
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: content is not valid JSON", ErrBadMessage)
	}
	if firstByte(data) != '{' {
		return nil, fmt.Errorf("%w: content is not a JSON object (batches are not supported)", ErrBadMessage)
	}
	msg, err := decodeRPC(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if err := checkMessage(msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// checkMessage rejects what the SDK decoder lets through but no peer may
// send: it would otherwise reach the MCP session as a method-less request or
// an empty response.
func checkMessage(msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "" {
			return fmt.Errorf("%w: request without a method", ErrBadMessage)
		}
	case *jsonrpc.Response:
		if (m.Result == nil) == (m.Error == nil) {
			return fmt.Errorf("%w: response needs exactly one of result and error", ErrBadMessage)
		}
	default:
		return fmt.Errorf("%w: unknown message type %T", ErrBadMessage, msg)
	}
	return nil
}

// firstByte returns the first non-whitespace byte of valid JSON data.
func firstByte(data []byte) byte {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\r', '\n':
		default:
			return b
		}
	}
	return 0
}
