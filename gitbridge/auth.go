package gitbridge

import (
	"errors"
	"net/http"

	"toolbus/nip98"
)

// TokenWindow is the largest accepted |now - created_at| of a token.
const TokenWindow = nip98.DefaultWindow

// errAnonymous marks a request that needs credentials but sent none.
var errAnonymous = errors.New("gitbridge: authentication required")

// rootURL is the repository root URL a token must name: the public URL
// followed by the path as the client spelt it.
func (b *Bridge) rootURL(rt route) string {
	return b.opts.PublicURL + rt.rootPath()
}

// authenticate returns the pubkey of the request's NIP-98 token, or "" when
// the request carries no Authorization header at all (anonymous). A header
// that is present but fails any check is an error: a bad credential is
// never downgraded to anonymous access.
//
// The token may arrive as "Nostr <base64>" or, for git before 2.46, as the
// password of HTTP Basic auth. The method tag is not checked and there is
// no replay cache, because git reuses one credential for GET and POST.
func (b *Bridge) authenticate(r *http.Request, rt route) (string, error) {
	if len(r.Header.Values("Authorization")) == 0 {
		return "", nil
	}
	// nip98 compares the request path with the root's path. When PublicURL
	// has a path prefix (a proxy that strips it), show nip98 the path as the
	// client sent it.
	shadow := r.WithContext(r.Context())
	u := *r.URL
	u.Path, u.RawPath = b.publicPath+r.URL.Path, ""
	shadow.URL = &u
	res, err := nip98.Verify(shadow, nip98.Options{
		ExpectedURL: b.rootURL(rt),
		URLMode:     nip98.MatchPrefix,
		SkipMethod:  true,
		AllowBasic:  true,
		Window:      TokenWindow,
		// git never sends a payload tag; a token that has one is held to
		// nip98's small default, so nobody with a throwaway key can make
		// the bridge buffer a whole pack in memory to hash it.
		MaxBody: nip98.DefaultMaxBody,
		Now:     b.opts.Now,
	})
	// A token with a payload tag makes nip98 read the body and put a copy
	// on the shadow request; hand that copy back.
	r.Body = shadow.Body
	if err != nil {
		return "", err
	}
	return res.PubKey, nil
}

// challenge answers 401 and offers both ways of sending a token. The reason
// is one of nip98's fixed sentinel texts, which never quote the request.
func challenge(w http.ResponseWriter, err error) {
	if errors.Is(err, nip98.ErrOptions) {
		http.Error(w, "git: server misconfigured", http.StatusInternalServerError)
		return
	}
	w.Header().Add("WWW-Authenticate", `Nostr realm="toolbus"`)
	w.Header().Add("WWW-Authenticate", `Basic realm="toolbus"`)
	http.Error(w, "authentication required: "+err.Error(), http.StatusUnauthorized)
}
