package relay

import (
	"net/url"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// authWindow is how far a NIP-42 event's created_at may be from now.
const authWindow = 10 * time.Minute

// handleAuth checks a NIP-42 AUTH event against this connection's challenge
// and the configured public URL (never the Host header), and on success
// remembers the pubkey for the rest of the connection.
func (c *conn) handleAuth(ev *nostr.Event) {
	if reason := c.checkAuth(ev); reason != "" {
		c.send(okMsg(ev.ID, false, reason))
		return
	}
	pk := ev.PubKey
	c.authed.Store(&pk)
	c.send(okMsg(ev.ID, true, ""))
	c.replayMailbox(pk)
}

func (c *conn) checkAuth(ev *nostr.Event) string {
	if ev.Kind != nostr.KindClientAuthentication {
		return "invalid: AUTH event must be kind 22242"
	}
	if ev.Tags.FindWithValue("challenge", c.challenge) == nil {
		return "invalid: AUTH challenge does not match this connection's"
	}
	rt := ev.Tags.Find("relay")
	if rt == nil || !sameRelayURL(rt[1], c.srv.wsURL) {
		return "invalid: AUTH relay tag must be " + c.srv.wsURL
	}
	skew := time.Since(ev.CreatedAt.Time())
	if skew > authWindow || skew < -authWindow {
		return "invalid: AUTH event created_at is more than 10 minutes from now"
	}
	if !ev.CheckID() {
		return "invalid: event id does not match its content"
	}
	if !signer.VerifyEvent(ev) {
		return "invalid: bad signature"
	}
	return ""
}

// sameRelayURL compares two relay URLs by scheme, host and path, ignoring
// case and a trailing slash, as clients vary in both.
func sameRelayURL(a, b string) bool {
	ua, err1 := url.Parse(strings.ToLower(strings.TrimSuffix(a, "/")))
	ub, err2 := url.Parse(strings.ToLower(strings.TrimSuffix(b, "/")))
	return err1 == nil && err2 == nil &&
		ua.Scheme == ub.Scheme && ua.Host == ub.Host && ua.Path == ub.Path
}
