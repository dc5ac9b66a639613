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
	if ok, err := ev.CheckSignature(); !ok || err != nil {
		return errors.New("relay: internal event is not validly signed")
	}
	if !nostr.IsEphemeralKind(ev.Kind) {
		hooks := s.kr.StoreEvent
		if nostr.IsReplaceableKind(ev.Kind) || nostr.IsAddressableKind(ev.Kind) {
			hooks = s.kr.ReplaceEvent
		}
		for _, store := range hooks {
			if err := store(ctx, ev); err != nil {
				return err
			}
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
