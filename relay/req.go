package relay

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/policies"
)

// handleReq opens (or replaces) a subscription: filters are checked and
// clamped by the hook pipeline, the subscription goes live in the index, and
// stored events are then sent in a goroutine ending with EOSE.
func (c *conn) handleReq(id string, filters nostr.Filters) {
	if reason := checkSubID(id); reason != "" {
		c.send(noticeMsg(reason))
		return
	}
	if max := c.srv.cfg.Limits.MaxFilters; len(filters) > max {
		c.send(closedMsg(id, "invalid: too many filters (max "+strconv.Itoa(max)+")"))
		return
	}
	for i := range filters {
		if reason := c.srv.checkFilter(c.hookCtx, &filters[i]); reason != "" {
			c.closeSub(id, "")
			if isAuthRequired(reason) {
				c.send(authMsg(c.challenge))
			}
			c.send(closedMsg(id, reason))
			return
		}
	}
	sub, reason := c.addSub(id, filters)
	if reason != "" {
		c.send(closedMsg(id, reason))
		return
	}
	c.srv.queries.Add(1)
	go c.serveStored(sub)
}

// addSub registers the subscription, replacing one with the same id as
// NIP-01 asks, and refusing past the per-connection maximum.
func (c *conn) addSub(id string, filters nostr.Filters) (*subscription, string) {
	ctx, cancel := context.WithCancel(c.hookCtx)
	sub := &subscription{conn: c, id: id, filters: filters, cancel: cancel}
	c.mu.Lock()
	old, replacing := c.subs[id]
	if c.dead || (!replacing && len(c.subs) >= c.srv.cfg.Limits.MaxSubscriptions) {
		c.mu.Unlock()
		cancel()
		return nil, "restricted: too many subscriptions on this connection (max " + strconv.Itoa(c.srv.cfg.Limits.MaxSubscriptions) + ")"
	}
	c.subs[id] = sub
	c.mu.Unlock()
	if replacing {
		c.srv.index.remove(old)
		old.cancel()
	}
	sub.ctx = ctx
	c.srv.index.add(sub)
	return sub, ""
}

// serveStored sends the stored events of every filter, then EOSE. An
// event that several filters match is sent once: the filters of one REQ
// are alternatives, not separate queries.
func (c *conn) serveStored(sub *subscription) {
	defer c.srv.queries.Done()
	var sent map[string]bool
	if len(sub.filters) > 1 {
		sent = map[string]bool{}
	}
	send := func(ev *nostr.Event) bool {
		if sent != nil {
			if sent[ev.ID] {
				return true
			}
			sent[ev.ID] = true
		}
		return c.out.push(eventMsg(sub.id, eventJSON(ev)))
	}
	for i := range sub.filters {
		f := &sub.filters[i]
		if f.LimitZero {
			continue
		}
		if f.Search != "" {
			c.srv.searchStored(sub.ctx, c.AuthedPubKey(), f, send)
			continue
		}
		c.srv.query(sub.ctx, f, func(ev *nostr.Event) bool {
			if !c.srv.visibleTo(c.AuthedPubKey(), f, ev) {
				return true
			}
			return send(ev)
		})
	}
	if sub.ctx.Err() == nil {
		c.send(eoseMsg(sub.id))
	}
}

// closeSub ends a subscription; reason, when set, is sent as CLOSED.
func (c *conn) closeSub(id, reason string) {
	c.mu.Lock()
	sub, ok := c.subs[id]
	delete(c.subs, id)
	c.mu.Unlock()
	if !ok {
		return
	}
	c.srv.index.remove(sub)
	sub.cancel()
	if reason != "" {
		c.send(closedMsg(id, reason))
	}
}

// checkSubID enforces NIP-01's subscription id rules: 1–64 characters.
func checkSubID(id string) string {
	if id == "" || utf8.RuneCountInString(id) > 64 {
		return "invalid: subscription id must be 1 to 64 characters"
	}
	return ""
}

func isAuthRequired(reason string) bool {
	return len(reason) >= 14 && reason[:14] == "auth-required:"
}

var _ policies.Conn = (*conn)(nil)
