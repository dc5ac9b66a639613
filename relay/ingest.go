package relay

import (
	"strconv"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip70"

	"toolbus/signer"
)

// handleEvent runs one EVENT through the cheap checks first (per-IP budget,
// tag count, id), then signature verification, then the write pipeline,
// and queues exactly one OK. OKs leave in the order the EVENTs came, even
// though stored events are acknowledged only when their batch is synced:
// the read loop goes on with the next message meanwhile, so a client that
// pipelines its EVENTs gets them committed together.
func (c *conn) handleEvent(ev *nostr.Event) {
	v := final(false, "")
	if reason := c.precheck(ev); reason != "" {
		v.reason = reason
	} else if reason := c.checkProtected(ev); reason != "" {
		v.reason = reason
	} else {
		v = c.srv.ingest(c.hookCtx, ev)
	}
	c.acks <- pendingAck{id: ev.ID, v: v}
}

// pendingAck is an OK waiting for its verdict.
type pendingAck struct {
	id string
	v  verdict
}

// ackLoop sends OKs in order as their verdicts resolve. It owns the end of
// the connection: when the read loop is done, the last OKs still go out
// before the outbound queue closes.
func (c *conn) ackLoop() {
	defer c.srv.readers.Done()
	defer c.close()
	for a := range c.acks {
		ok, reason := a.v.resolve()
		c.send(okMsg(a.id, ok, reason))
	}
}

// precheck does everything cheaper than a signature verification, in order
// of cost, so a flood of junk is turned away before the ~40–150 µs verify.
func (c *conn) precheck(ev *nostr.Event) string {
	if c.srv.ipLimit != nil {
		if ok, wait := c.srv.ipLimit.Allow(c.ip); !ok {
			return "rate-limited: too many events from your address, retry in " + strconv.FormatInt(wait.Milliseconds()+1, 10) + " ms"
		}
	}
	if max := c.srv.cfg.Limits.MaxEventTags; len(ev.Tags) > max {
		return "invalid: too many tags (max " + strconv.Itoa(max) + ")"
	}
	if !ev.CheckID() {
		return "invalid: event id does not match its content"
	}
	if !signer.VerifyEvent(ev) {
		return "invalid: bad signature"
	}
	return ""
}

// checkProtected enforces NIP-70: a "-" tagged event is accepted only from
// its authenticated author.
func (c *conn) checkProtected(ev *nostr.Event) string {
	if nip70.IsProtected(*ev) {
		switch authed := c.AuthedPubKey(); {
		case authed == "":
			c.send(authMsg(c.challenge))
			return "auth-required: protected events must be published by their authenticated author"
		case authed != ev.PubKey:
			return "blocked: protected events must be published by their author"
		}
	}
	if nip70.HasEmbeddedProtected(*ev) {
		return "blocked: cannot repost a protected event"
	}
	return ""
}

// storable refuses what eventstore's binary encoding cannot hold, with a
// reason, rather than failing inside the commit with a generic error.
func storable(ev *nostr.Event) string {
	switch {
	case len(ev.Content) > 65535:
		return "invalid: content too large to store (max 65535 bytes)"
	case ev.Kind > 65535 || ev.CreatedAt > 4294967295 || len(ev.Tags) > 65535:
		return "invalid: kind, created_at or tag count out of the store's range"
	}
	for _, t := range ev.Tags {
		if len(t) > 255 {
			return "invalid: a tag has more than 255 items"
		}
		for _, item := range t {
			if len(item) > 65535 {
				return "invalid: a tag item is longer than 65535 bytes"
			}
		}
	}
	return ""
}
