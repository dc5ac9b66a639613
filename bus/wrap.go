package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"

	"toolbus/signer"
)

// Wrap encrypts the signed kind-25910 event inner to recipient (64-hex
// public key) and returns a wrap of the given kind, [KindGiftWrap] or
// [KindEphemeralGiftWrap].
//
// Each call uses a fresh random key, which encrypts and signs the wrap and is
// then forgotten: relays and observers learn the recipient (they must, to
// route it) but not the sender, and two wraps cannot be linked by their key.
// The wrap's created_at is now, not randomised as NIP-59 suggests, because
// receivers subscribe with since=now and would miss a back-dated wrap.
func Wrap(inner *nostr.Event, recipient string, kind int) (*nostr.Event, error) {
	if !IsWrapKind(kind) {
		return nil, fmt.Errorf("%w: kind %d is neither %d nor %d", ErrNotWrap, kind, KindGiftWrap, KindEphemeralGiftWrap)
	}
	if err := checkSigned(inner); err != nil {
		return nil, err
	}
	// The curve check is the ECDH's, in wrapWith: parsing the point here
	// would cost a square root (~12 µs) for nothing.
	if !signer.IsLowerHex(recipient, 64) {
		return nil, fmt.Errorf("bus: wrap recipient: %w", signer.ErrInvalidPubKey)
	}
	// Unwrap refuses this, so fail at the sender where the bug is.
	if got := Recipient(inner); got != recipient {
		return nil, fmt.Errorf("%w: inner event is addressed to %q, wrap to %q", ErrRecipientMismatch, got, recipient)
	}
	plaintext, err := sealPlaintext(inner)
	if err != nil {
		return nil, err
	}
	return wrapWith(plaintext, recipient, kind, nostr.GeneratePrivateKey(), nostr.Now())
}

// checkSigned requires inner to be a kind-25910 event whose id matches its
// content and which carries a signature. The signature itself is not
// verified: the caller just signed it, and the receiver verifies anyway.
func checkSigned(inner *nostr.Event) error {
	switch {
	case inner == nil:
		return fmt.Errorf("%w: nil event", ErrInnerInvalid)
	case inner.Kind != KindMessage:
		return fmt.Errorf("%w: kind %d, want %d", ErrInnerInvalid, inner.Kind, KindMessage)
	case inner.Sig == "" || inner.PubKey == "":
		return fmt.Errorf("%w: event is not signed", ErrInnerInvalid)
	case !inner.CheckID():
		return fmt.Errorf("%w: id does not match the event (modified after signing?)", ErrInnerInvalid)
	}
	return nil
}

// sealPlaintext serialises inner the way go-nostr does on the wire (compact
// JSON, no HTML escaping) and checks it fits NIP-44.
func sealPlaintext(inner *nostr.Event) ([]byte, error) {
	plaintext, err := inner.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInnerInvalid, err)
	}
	if len(plaintext) > MaxPlaintext {
		return nil, fmt.Errorf("%w: serialised event is %d bytes, limit %d", ErrTooLarge, len(plaintext), MaxPlaintext)
	}
	return plaintext, nil
}

// wrapWith encrypts plaintext from wrapKey (hex secret) to recipient and
// returns the wrap signed by wrapKey. The test-vector generator calls it
// with a fixed key; everything else goes through Wrap.
func wrapWith(plaintext []byte, recipient string, kind int, wrapKey string, at nostr.Timestamp) (*nostr.Event, error) {
	ck, err := signer.ConversationKey(wrapKey, recipient)
	if err != nil {
		return nil, fmt.Errorf("bus: wrap conversation key: %w", err)
	}
	content, err := nip44.Encrypt(string(plaintext), ck)
	if err != nil {
		return nil, fmt.Errorf("bus: wrap encrypt failed")
	}
	wrap := &nostr.Event{
		Kind:      kind,
		CreatedAt: at,
		Tags:      nostr.Tags{{"p", recipient}},
		Content:   content,
	}
	if err := wrap.Sign(wrapKey); err != nil {
		return nil, fmt.Errorf("bus: wrap signing failed")
	}
	return wrap, nil
}

// Unwrap decrypts a wrap addressed to c's owner and returns the verified
// kind-25910 event inside.
//
// The wrap must be of a wrap kind, name a recipient in its p tag, and have an
// id matching its content (receivers deduplicate by that id). Its signature
// is not checked: it is made by a throwaway key and proves nothing about the
// sender; the inner event's signature is what authenticates.
//
// The inner event must name the same recipient in its p tag as the wrap, and,
// when c can tell its own public key (any [signer.Signer] can), that must be
// c's key. Without this, anyone who receives a signed request could re-wrap
// it to a different server, which would then run it as if the author had
// asked it: the inner signature covers the intended recipient, so checking
// it binds the request to the one server the author chose.
func Unwrap(ctx context.Context, c signer.Cipher, wrap *nostr.Event) (*nostr.Event, error) {
	recipient, err := checkWrap(wrap, c)
	if err != nil {
		return nil, err
	}
	plaintext, err := c.Decrypt(ctx, wrap.Content, wrap.PubKey)
	if err != nil {
		return nil, fmt.Errorf("%w: wrap %s: %w", ErrDecrypt, wrap.ID, err)
	}
	inner, err := parseInner([]byte(plaintext))
	if err != nil {
		return nil, err
	}
	if err := verifyInner(inner); err != nil {
		return nil, err
	}
	if got := Recipient(inner); got != recipient {
		return nil, fmt.Errorf("%w: inner event %s is addressed to %q, its wrap to %q", ErrRecipientMismatch, inner.ID, got, recipient)
	}
	return inner, nil
}

// checkWrap validates the outer event before any cryptography and returns
// the recipient it names.
func checkWrap(wrap *nostr.Event, c signer.Cipher) (string, error) {
	if wrap == nil {
		return "", fmt.Errorf("%w: nil event", ErrNotWrap)
	}
	if !IsWrapKind(wrap.Kind) {
		return "", fmt.Errorf("%w: kind %d", ErrNotWrap, wrap.Kind)
	}
	recipient := Recipient(wrap)
	if recipient == "" {
		return "", fmt.Errorf("%w: no p tag", ErrNotWrap)
	}
	if !wrap.CheckID() {
		return "", fmt.Errorf("%w: id does not match the event", ErrNotWrap)
	}
	if own, ok := c.(interface{ PublicKey() string }); ok && own.PublicKey() != recipient {
		return "", fmt.Errorf("%w: wrap %s is addressed to %q, not to us", ErrRecipientMismatch, wrap.ID, recipient)
	}
	return recipient, nil
}

// wireEvent is a NIP-01 event as JSON, with pointers so that a missing or
// null field can be told from a zero one.
type wireEvent struct {
	ID        *string     `json:"id"`
	PubKey    *string     `json:"pubkey"`
	CreatedAt *int64      `json:"created_at"`
	Kind      *int        `json:"kind"`
	Tags      *nostr.Tags `json:"tags"`
	Content   *string     `json:"content"`
	Sig       *string     `json:"sig"`
}

// parseInner decodes plaintext strictly: one JSON object with exactly the
// seven NIP-01 fields, nothing after it. go-nostr's own decoder is lenient
// (missing fields become zero values), which is fine for relays but not for
// data an unknown peer chose.
func parseInner(plaintext []byte) (*nostr.Event, error) {
	dec := json.NewDecoder(bytes.NewReader(plaintext))
	dec.DisallowUnknownFields()
	var w wireEvent
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%w: not a JSON event object: %v", ErrInnerInvalid, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the event object", ErrInnerInvalid)
	}
	if w.ID == nil || w.PubKey == nil || w.CreatedAt == nil || w.Kind == nil ||
		w.Tags == nil || w.Content == nil || w.Sig == nil {
		return nil, fmt.Errorf("%w: missing or null field", ErrInnerInvalid)
	}
	for _, tag := range *w.Tags {
		if tag == nil {
			return nil, fmt.Errorf("%w: null tag", ErrInnerInvalid)
		}
	}
	return &nostr.Event{
		ID:        *w.ID,
		PubKey:    *w.PubKey,
		CreatedAt: nostr.Timestamp(*w.CreatedAt),
		Kind:      *w.Kind,
		Tags:      *w.Tags,
		Content:   *w.Content,
		Sig:       *w.Sig,
	}, nil
}

// verifyInner checks kind, id and signature of a decrypted inner event.
func verifyInner(inner *nostr.Event) error {
	if inner.Kind != KindMessage {
		return fmt.Errorf("%w: kind %d, want %d", ErrInnerInvalid, inner.Kind, KindMessage)
	}
	if !inner.CheckID() {
		return fmt.Errorf("%w: id does not match the event", ErrInnerInvalid)
	}
	if !signer.VerifyEvent(inner) {
		return fmt.Errorf("%w: bad signature on %s", ErrInnerInvalid, inner.ID)
	}
	return nil
}
