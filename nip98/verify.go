package nip98

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Defaults applied when the corresponding Options field is zero.
const (
	DefaultWindow  = 60 * time.Second
	DefaultMaxBody = 1 << 20
)

// URLMode selects how the token's u tag is matched.
type URLMode int

const (
	// MatchExact requires u to equal Options.ExpectedURL after normalisation.
	// It is the zero value.
	MatchExact URLMode = iota
	// MatchPrefix requires u to equal Options.ExpectedURL (a root such as a
	// git repository URL) and the request path to be that root or below it.
	MatchPrefix
)

// Options configures [Verify]. It is a value: every check is on unless a
// field explicitly turns it off, and zero numeric fields take defaults.
type Options struct {
	// ExpectedURL is the absolute http(s) URL the token must name, as
	// clients see it (public scheme, host and path). Required: an empty or
	// relative value fails with ErrOptions. In MatchPrefix mode it is the
	// root URL, computed by the caller per request.
	ExpectedURL string
	// URLMode selects exact or prefix matching; zero is MatchExact.
	URLMode URLMode
	// SkipMethod disables the method check, for clients such as git that
	// reuse one token for GET and POST.
	SkipMethod bool
	// RequirePayload makes the payload tag mandatory. A payload tag that is
	// present is checked against the body regardless of this field.
	RequirePayload bool
	// MaxBody is the most body bytes read to check a payload; zero means
	// DefaultMaxBody. Larger bodies fail with ErrBodyTooLarge.
	MaxBody int64
	// Window is the largest accepted |now - created_at|; zero or negative
	// means DefaultWindow.
	Window time.Duration
	// Now returns the current time; nil means time.Now. For tests.
	Now func() time.Time
	// Replay, when non-nil, rejects event ids accepted before.
	Replay *ReplayCache
	// AllowBasic also accepts the token as the password of HTTP Basic auth.
	AllowBasic bool
}

// Result describes an accepted token.
type Result struct {
	// PubKey is the signer's public key, 64 lower-case hex characters.
	PubKey string
	// Event is the verified kind-27235 event.
	Event *nostr.Event
}

// Verify checks the NIP-98 token of r against opts and returns the signer.
// When the token has a payload tag, Verify reads r.Body (up to MaxBody) and
// replaces it with an equivalent reader so the handler can read it again.
// Errors wrap the package's sentinels.
func Verify(r *http.Request, opts Options) (*Result, error) {
	want, err := normalizeURL(opts.ExpectedURL)
	if err != nil {
		return nil, fmt.Errorf("%w: expected url: %w", ErrOptions, err)
	}
	token, err := tokenFromRequest(r, opts.AllowBasic)
	if err != nil {
		return nil, err
	}
	ev, err := decodeEvent(token)
	if err != nil {
		return nil, err
	}
	now := opts.now()
	if err := checkEvent(ev, now, opts.window()); err != nil {
		return nil, err
	}
	if err := checkURL(ev, r, want, opts.URLMode); err != nil {
		return nil, err
	}
	if err := checkMethod(ev, r, opts.SkipMethod); err != nil {
		return nil, err
	}
	if err := checkPayload(ev, r, opts); err != nil {
		return nil, err
	}
	// Last, so only tokens that passed everything else are recorded.
	if opts.Replay != nil && opts.Replay.Seen(ev.ID, now) {
		return nil, ErrReplayed
	}
	return &Result{PubKey: ev.PubKey, Event: ev}, nil
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) window() time.Duration {
	if o.Window <= 0 {
		return DefaultWindow
	}
	return o.Window
}

func (o Options) maxBody() int64 {
	if o.MaxBody <= 0 {
		return DefaultMaxBody
	}
	return o.MaxBody
}

// checkEvent checks kind, age and signature: everything that does not
// depend on the request.
func checkEvent(ev *nostr.Event, now time.Time, window time.Duration) error {
	if ev.Kind != nostr.KindHTTPAuth {
		return ErrWrongKind
	}
	// Whole seconds in int64: a Duration difference would saturate for
	// absurd timestamps and its absolute value could overflow.
	w, n, c := int64(window/time.Second), now.Unix(), int64(ev.CreatedAt)
	if c < n-w || c > n+w {
		return ErrExpired
	}
	if !ev.CheckID() {
		return ErrBadSignature
	}
	if !signer.VerifyEvent(ev) {
		return ErrBadSignature
	}
	return nil
}

func checkURL(ev *nostr.Event, r *http.Request, want string, mode URLMode) error {
	u, ok, err := singleTag(ev, "u")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no u tag", ErrURLMismatch)
	}
	got, err := normalizeURL(u)
	if err != nil || got != want {
		return ErrURLMismatch
	}
	if mode == MatchPrefix && !underRoot(want, r.URL.Path) {
		return fmt.Errorf("%w: request outside root", ErrURLMismatch)
	}
	return nil
}

func checkMethod(ev *nostr.Event, r *http.Request, skip bool) error {
	if skip {
		return nil
	}
	m, ok, err := singleTag(ev, "method")
	if err != nil {
		return err
	}
	method := r.Method
	if method == "" { // net/http's spelling of GET on client-side requests
		method = http.MethodGet
	}
	if !ok || !strings.EqualFold(m, method) {
		return ErrMethodMismatch
	}
	return nil
}

func checkPayload(ev *nostr.Event, r *http.Request, opts Options) error {
	tag, ok, err := singleTag(ev, "payload")
	if err != nil {
		return err
	}
	if !ok {
		if opts.RequirePayload {
			return ErrPayloadMissing
		}
		return nil
	}
	body, err := rereadableBody(r, opts.maxBody())
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	if !strings.EqualFold(tag, hex.EncodeToString(sum[:])) {
		return ErrPayloadMismatch
	}
	return nil
}

// rereadableBody reads up to max bytes of r.Body and puts an equivalent
// reader back in its place.
func rereadableBody(r *http.Request, max int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > max {
		return nil, ErrBodyTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return nil, ErrBodyTooLarge // an outer http.MaxBytesReader is stricter
	}
	if err != nil {
		return nil, fmt.Errorf("nip98: read body: %w", err)
	}
	if int64(len(body)) > max {
		return nil, ErrBodyTooLarge
	}
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}
