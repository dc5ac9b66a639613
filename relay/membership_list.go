package relay

import (
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// The relay publishes the workspace's members as a NIP-43 membership list
// (kind 13534, signed by the relay key, protected with ["-"], one "member"
// tag per pubkey) at start and after every change. Workers subscribe to it
// to keep their caller allowlist current; because the relay broadcasts the
// new list before answering the NIP-86 call that changed it, and delivers
// each connection's events in order, a worker that reads the list and its
// calls on one subscription sees a revocation before any later call.

// membershipChanged closes revoked subscriptions and republishes the list.
func (s *Server) membershipChanged(pk string) {
	s.revoke(pk)
	if !s.IsMember(pk) {
		s.removeFromChannels(pk)
	}
	if err := s.publishMembership(); err != nil {
		s.log.Error("could not publish the membership list", "err", err)
	}
}

// publishMembership stores and broadcasts a fresh membership list. Its
// created_at strictly increases, so two changes in one second still replace
// each other in order.
func (s *Server) publishMembership() error {
	s.membershipMu.Lock()
	defer s.membershipMu.Unlock()
	members := make([]string, 0)
	for pk := range s.acl.Allowed() {
		members = append(members, pk)
	}
	slices.Sort(members)
	tags := nostr.Tags{{"-"}}
	for _, pk := range members {
		tags = append(tags, nostr.Tag{"member", pk})
	}
	at := max(nostr.Now(), s.lastMembershipAt+1)
	s.lastMembershipAt = at
	ev := nostr.Event{Kind: kindMembershipLi, CreatedAt: at, Tags: tags}
	ctx := context.Background()
	if err := s.key.SignEvent(ctx, &ev); err != nil {
		return err
	}
	return s.PublishInternal(ctx, &ev)
}

// replayMailbox runs when a connection authenticates: mailbox events its
// subscriptions match that it could not see before (plaintext tool traffic
// for this pubkey that arrived before AUTH completed) are delivered now.
func (c *conn) replayMailbox(pk string) {
	c.mu.Lock()
	subs := make([]*subscription, 0, len(c.subs))
	for _, sub := range c.subs {
		subs = append(subs, sub)
	}
	c.mu.Unlock()
	for _, sub := range subs {
		for i := range sub.filters {
			f := &sub.filters[i]
			for _, ev := range c.srv.mailbox.match(f) {
				if c.srv.visibleTo(pk, f, ev) && !c.srv.visibleTo("", f, ev) {
					c.send(eventMsg(sub.id, eventJSON(ev)))
				}
			}
		}
	}
}
