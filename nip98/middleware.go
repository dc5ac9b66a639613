package nip98

import (
	"context"
	"errors"
	"net/http"
)

type ctxKey struct{}

// Middleware verifies every request with opts and rejects failures:
// 401 with WWW-Authenticate "Nostr" (plus `Basic realm="toolbus"` when
// AllowBasic) and the error text as a plain-text reason, 413 for
// ErrBodyTooLarge, and 500 for ErrOptions. On success the signer's public key
// is in the request context; see [PubKeyFromContext]. opts is fixed, so
// per-request roots (git prefix mode) should call [Verify] directly.
func Middleware(opts Options) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			res, err := Verify(r, opts)
			if err != nil {
				fail(w, err, opts.AllowBasic)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithPubKey(r.Context(), res.PubKey)))
		})
	}
}

func fail(w http.ResponseWriter, err error, allowBasic bool) {
	switch {
	case errors.Is(err, ErrOptions):
		http.Error(w, "nip98: verifier misconfigured", http.StatusInternalServerError)
	case errors.Is(err, ErrBodyTooLarge):
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
	default:
		w.Header().Add("WWW-Authenticate", "Nostr")
		if allowBasic {
			w.Header().Add("WWW-Authenticate", `Basic realm="toolbus"`)
		}
		http.Error(w, err.Error(), http.StatusUnauthorized)
	}
}

// WithPubKey returns ctx carrying an authenticated public key, as
// [Middleware] does. Useful for testing handlers behind the middleware.
func WithPubKey(ctx context.Context, pubkey string) context.Context {
	return context.WithValue(ctx, ctxKey{}, pubkey)
}

// PubKeyFromContext returns the public key [Middleware] authenticated, if
// any.
func PubKeyFromContext(ctx context.Context) (string, bool) {
	pk, ok := ctx.Value(ctxKey{}).(string)
	return pk, ok && pk != ""
}
