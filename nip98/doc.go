// Package nip98 builds and verifies NIP-98 HTTP auth tokens (kind 27235).
//
// A token is a signed event with empty content and the tags ["u", URL],
// ["method", METHOD] and, when the request has a body, ["payload", hex
// sha256 of the body]. It travels as "Authorization: Nostr <base64 JSON>".
// toolbus uses it for NIP-86 relay management calls and git smart-HTTP
// pushes.
//
// # Decisions
//
// URL normalisation. Both the token's u tag and the expected URL are
// normalised before comparison: the scheme and host are lower-cased, the
// default port (80 for http, 443 for https) is dropped, the fragment is
// dropped (browsers never send it), an empty path becomes "/" and a single
// trailing slash on the path is ignored, so "https://h/a/" and "https://h/a"
// are the same URL. The query string is kept verbatim and must match. Dot
// segments and percent-encoding are not rewritten, so such differences can
// only cause a rejection, never a false match. URLs with user info, or
// schemes other than http and https, never match.
//
// Time window. created_at must lie within Options.Window (60 s by default)
// of the verifier's clock, in the past or the future, compared at
// one-second resolution. The future side tolerates client clock skew.
//
// Prefix mode. git talks to several URLs below one repository
// (/info/refs, /git-upload-pack, /git-receive-pack) but a credential helper
// signs one URL. In [MatchPrefix] mode the token's u must equal
// Options.ExpectedURL exactly, and the caller sets ExpectedURL to the
// repository root, e.g. https://relay/git/<npub>/<repo>.git, computed from
// the request path. Verify then also requires the request's own path to be
// that root or below it, and refuses request paths with "." or ".."
// segments so a token for one repository cannot be walked into another.
// The request-path check uses r.URL.Path, so a proxy that strips a path
// prefix must be compensated for by the caller (or use [MatchExact]).
//
// Method. By default the method tag must equal r.Method (ignoring case).
// Options.SkipMethod turns this off for git, which obtains one credential
// and reuses it for the GET of /info/refs and the POST of
// /git-receive-pack; the u tag, time window and replay cache still bound it.
//
// Payload. When the token carries a payload tag the body is always hashed
// and compared, even if the caller did not require a payload: a token bound
// to some other body must not be accepted. Options.RequirePayload
// additionally makes the tag mandatory. The body is read at most once, up to
// Options.MaxBody, and r.Body is replaced so the handler can read it again.
//
// Replay. With Options.Replay set, each accepted event id is remembered for
// the cache's TTL and presenting it again fails with [ErrReplayed]. Only
// tokens that passed every other check are recorded, so a forged or
// misdirected token (which may share the id of a genuine one) cannot
// poison the cache. The TTL should be at least twice the window, since a
// token is acceptable from created_at-Window until created_at+Window. The
// cache is bounded; when full it forgets the oldest entry, which reopens
// replay of that token for the rest of its window, so size it for the
// expected rate of accepted requests. Note that git reuses one token for
// several requests of a single push, so the git bridge should not use a
// replay cache (or should key it differently).
//
// Basic auth. git before 2.46 cannot send custom authorization schemes, so
// with Options.AllowBasic the base64 event may also arrive as the password
// of HTTP Basic auth, with any user name.
//
// Errors are the sentinel values in this package, possibly wrapped with a
// short lower-case context; they never quote the token or the request.
package nip98
