package nip98

import "errors"

// Sentinel errors returned (possibly wrapped) by [Verify]. Test with
// errors.Is. Their messages are short and never quote request data, so they
// are safe to return to clients.
var (
	// ErrMissing means the request has no Authorization header.
	ErrMissing = errors.New("nip98: missing authorization")
	// ErrMalformed means the header's scheme, base64, JSON or tag layout is
	// unusable, or the header is longer than the length cap.
	ErrMalformed = errors.New("nip98: malformed authorization")
	// ErrWrongKind means the event is not kind 27235.
	ErrWrongKind = errors.New("nip98: wrong event kind")
	// ErrBadSignature means the event id or signature does not verify.
	ErrBadSignature = errors.New("nip98: bad event id or signature")
	// ErrExpired means created_at lies outside the time window, in either
	// direction.
	ErrExpired = errors.New("nip98: token outside time window")
	// ErrURLMismatch means the u tag is missing or does not match the
	// expected URL, or the request is not below the expected root.
	ErrURLMismatch = errors.New("nip98: url mismatch")
	// ErrMethodMismatch means the method tag is missing or differs from the
	// request method.
	ErrMethodMismatch = errors.New("nip98: method mismatch")
	// ErrPayloadMissing means a payload tag was required but absent.
	ErrPayloadMissing = errors.New("nip98: payload tag missing")
	// ErrPayloadMismatch means the body's sha256 differs from the payload tag.
	ErrPayloadMismatch = errors.New("nip98: payload mismatch")
	// ErrReplayed means the event id was already accepted within the replay
	// cache's TTL.
	ErrReplayed = errors.New("nip98: token replayed")
	// ErrBodyTooLarge means the body exceeds Options.MaxBody and so cannot be
	// hashed.
	ErrBodyTooLarge = errors.New("nip98: request body too large")
	// ErrOptions means the verifier itself is misconfigured (for example an
	// empty or relative ExpectedURL). It is a server fault, not a client one.
	ErrOptions = errors.New("nip98: invalid verifier options")
)
