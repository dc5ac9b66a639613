package relay

import (
	"context"
	"errors"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Signer is the relay's own key: it signs what the relay itself publishes
// (membership lists, git state events, channel metadata).
func (s *Server) Signer() signer.Signer { return s.key }

// IsMember reports whether pk may write and read the workspace: a member in
// members mode, anyone not banned in open mode.
func (s *Server) IsMember(pk string) bool {
	if s.acl.Open() {
		return !s.acl.IsBanned(pk)
	}
	return s.acl.IsMember(pk)
}

// PublishInternal stores and broadcasts an event the relay produced itself
// (already signed, normally by Signer). It bypasses the write rules, which
// are for clients; replaceable and addressable events replace their
// previous version.
func (s *Server) PublishInternal(ctx context.Context, ev *nostr.Event) error {
	if !signer.VerifyEvent(ev) {
		return errors.New("relay: internal event is not validly signed")
	}
	if !nostr.IsEphemeralKind(ev.Kind) {
		if err := s.storeEvent(ctx, ev); err != nil {
			return err
		}
	}
	s.broadcast(ev)
	return nil
}

// QueryStored returns stored events matching f (newest first), for
// components wired beside the relay (git access reads announcements).
func (s *Server) QueryStored(ctx context.Context, f nostr.Filter) []*nostr.Event {
	var out []*nostr.Event
	s.query(ctx, &f, func(ev *nostr.Event) bool {
		out = append(out, ev)
		return true
	})
	return out
}

// storeEvent writes ev durably through the group committer (replacing the
// previous version of replaceable and addressable kinds) and queues it for
// the search index.
func (s *Server) storeEvent(_ context.Context, ev *nostr.Event) error {
	if err := s.commit.write(ev, isReplaceable(ev)); err != nil {
		return err
	}
	s.indexForSearch(ev)
	return nil
}

// deleteEvents removes events from the store and the search index, then
// makes the deletions durable.
func (s *Server) deleteEvents(ctx context.Context, evs []*nostr.Event) {
	if len(evs) == 0 {
		return
	}
	for _, ev := range evs {
		if err := s.store.DeleteEvent(ctx, ev); err != nil {
			s.log.Warn("delete failed", "id", ev.ID, "err", err)
		}
		s.unindex(ev)
	}
	if err := s.commit.flush(); err != nil {
		s.log.Error("could not sync deletions", "err", err)
	}
}
