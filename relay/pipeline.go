package relay

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/policies"
)

// verdict is the answer to one EVENT: final now, or once its write is
// durable (group commit).
type verdict struct {
	ok     bool
	reason string
	write  *writeReq
}

func final(ok bool, reason string) verdict { return verdict{ok: ok, reason: reason} }

// resolve waits for the write, if any, and returns the OK to send.
func (v verdict) resolve() (bool, string) {
	if v.write == nil {
		return v.ok, v.reason
	}
	if err := v.write.wait(); err != nil {
		return false, err.Error()
	}
	if v.write.dup {
		return true, "duplicate: already have this event"
	}
	return true, ""
}

// ingest runs a verified event through the write rules and, for stored
// kinds, queues it for group commit: it is delivered live as soon as its
// transaction commits, and acknowledged once that is synced to disk.
func (s *Server) ingest(ctx context.Context, ev *nostr.Event) verdict {
	switch {
	case isBusKind(ev.Kind):
		return final(s.ingestBus(ctx, ev))
	case isGroupEvent(ev):
		return final(s.ingestGroup(ctx, ev))
	case ev.Kind == nostr.KindDeletion:
		if reason := s.checkDeletion(ctx, ev); reason != "" {
			return final(false, reason)
		}
	case !nostr.IsEphemeralKind(ev.Kind) && s.wasDeleted(ctx, ev):
		return final(false, "blocked: this event was deleted by its author")
	}
	if reason := s.rejectEvent(ctx, ev); reason != "" {
		return final(false, reason)
	}
	if nostr.IsEphemeralKind(ev.Kind) {
		s.broadcast(ev)
		return final(true, "")
	}
	if reason := storable(ev); reason != "" {
		return final(false, reason)
	}
	w := s.commit.submit(ev, isReplaceable(ev), func(*writeReq) {
		if ev.Kind == nostr.KindDeletion {
			s.applyDeletion(ctx, ev)
		}
		s.indexForSearch(ev)
		s.broadcast(ev)
	})
	return verdict{write: w}
}

func isReplaceable(ev *nostr.Event) bool {
	return nostr.IsReplaceableKind(ev.Kind) || nostr.IsAddressableKind(ev.Kind)
}

// checkFilter applies the filter hooks: overwrite (clamp) then reject.
func (s *Server) checkFilter(ctx context.Context, f *nostr.Filter) string {
	for _, ovw := range s.kr.OverwriteFilter {
		ovw(ctx, f)
	}
	for _, reject := range s.kr.RejectFilter {
		if no, msg := reject(ctx, *f); no {
			return nostr.NormalizeOKMessage(msg, "blocked")
		}
	}
	return ""
}

// query streams stored events matching f to fn until fn returns false. The
// store's channel is always drained: the LMDB backend's producer has no
// context and would otherwise block forever. Every event is checked against
// the whole filter: the LMDB backend answers an ids query by id alone
// (kinds, authors and tags ignored).
func (s *Server) query(ctx context.Context, f *nostr.Filter, fn func(*nostr.Event) bool) {
	for _, q := range s.kr.QueryEvents {
		ch, err := q(ctx, *f)
		if err != nil || ch == nil {
			continue
		}
		want := true
		for ev := range ch {
			if want && ctx.Err() == nil && f.Matches(ev) {
				want = fn(ev)
			}
		}
	}
}

// visibleTo asks every visibility rule whether pk, reading through f, may
// receive ev. Expired events are visible to nobody.
func (s *Server) visibleTo(pk string, f *nostr.Filter, ev *nostr.Event) bool {
	if policies.Expired(ev, nostr.Now()) {
		return false
	}
	v := policies.Viewer{PubKey: pk, Filter: f}
	for _, ok := range s.visible {
		if !ok(v, ev) {
			return false
		}
	}
	return true
}

// broadcast delivers ev to every live subscription that matches it and may
// see it. Delivery never waits on a subscriber (see outQueue).
func (s *Server) broadcast(ev *nostr.Event) {
	var js []byte
	for _, t := range s.index.match(ev) {
		c := t.sub.conn
		if t.filter.Search != "" && !matchesSearch(t.filter.Search, ev.Content) {
			continue
		}
		if !s.visibleTo(c.AuthedPubKey(), t.filter, ev) {
			continue
		}
		if js == nil {
			js = eventJSON(ev)
		}
		c.deliver(eventMsg(t.sub.id, js))
	}
}

// revoke runs after a membership change: subscriptions of connections
// authenticated as pk that pk may no longer hold are closed with a reason.
// Delivery-time checks already stop every event; this tells the client.
func (s *Server) revoke(pk string) {
	if s.acl.IsMember(pk) || (s.acl.Open() && !s.acl.IsBanned(pk)) {
		return
	}
	s.mu.Lock()
	var hit []*conn
	for c := range s.conns {
		if c.AuthedPubKey() == pk {
			hit = append(hit, c)
		}
	}
	s.mu.Unlock()
	for _, c := range hit {
		c.mu.Lock()
		ids := make([]string, 0, len(c.subs))
		for id := range c.subs {
			ids = append(ids, id)
		}
		c.mu.Unlock()
		for _, id := range ids {
			c.closeSub(id, "restricted: your workspace membership was revoked")
		}
	}
}
