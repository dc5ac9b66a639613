package bus

import "errors"

// Sentinel errors. Callers test them with errors.Is; messages may add sizes,
// kinds or event ids, never key material or decrypted content.
var (
	// ErrTooLarge means a message does not fit one event: a serialised inner
	// event over [MaxPlaintext], the most NIP-44 v2 can encrypt, or a
	// plaintext message whose content exceeds the same limit, which is also
	// the relay's default max_content_bytes.
	ErrTooLarge = errors.New("bus: message too large for one event")
	// ErrNotWrap means an event is not a usable gift wrap: wrong kind,
	// missing recipient, or an id that does not match its content.
	ErrNotWrap = errors.New("bus: not a gift wrap")
	// ErrDecrypt means a wrap's content could not be decrypted with our key
	// (not for us, corrupted, or not NIP-44 v2).
	ErrDecrypt = errors.New("bus: cannot decrypt gift wrap")
	// ErrInnerInvalid means the event inside a wrap (or handed to [Wrap]) is
	// malformed: bad JSON, missing fields, wrong kind, bad id or signature.
	ErrInnerInvalid = errors.New("bus: invalid inner event")
	// ErrRecipientMismatch means the inner event's p tag, the wrap's p tag and
	// the decrypting key do not all name the same recipient.
	ErrRecipientMismatch = errors.New("bus: recipient mismatch")
	// ErrBadMessage means a message event's content is not a JSON-RPC 2.0
	// message.
	ErrBadMessage = errors.New("bus: not a JSON-RPC 2.0 message")
)
