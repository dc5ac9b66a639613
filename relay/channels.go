package relay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/groups"
	"toolbus/relay/policies"
)

// Workspace channels are NIP-29 groups kept by package groups. The relay
// routes every group event through it before storing: moderation changes
// state, content is checked against membership, and what the state machine
// produces (relay-signed moderation records, 39000-39003 metadata,
// deletions) is applied to the store and broadcast.

const (
	kindJoinRequest  = 9021
	kindCreateInvite = 9009
)

// isGroupEvent reports whether ev belongs to a channel.
func isGroupEvent(ev *nostr.Event) bool {
	return groups.IsModerationKind(ev.Kind) || groups.IsMetadataKind(ev.Kind) ||
		ev.Tags.GetFirst([]string{"h", ""}) != nil
}

// initGroups rebuilds channel state from the log, in the recorded order of
// application, and re-syncs metadata.
func (s *Server) initGroups(ctx context.Context) error {
	order, recorded, err := openOrderLog(filepath.Join(s.cfg.DataDir, "groups.order"))
	if err != nil {
		return err
	}
	s.order = order
	s.groups = groups.New(s.key, groups.Options{WorkspaceMember: s.IsMember, Lookup: s.lookupID,
		Logger: s.log, RecordsOrder: true})
	kinds := []int{39000, 39001, 39002, 39003, kindCreateInvite, kindJoinRequest, 9022}
	for k := 9000; k <= 9008; k++ {
		kinds = append(kinds, k)
	}
	log := replayOrder(s.queryAll(ctx, nostr.Filter{Kinds: kinds}), recorded, s.key.PublicKey())
	if err := s.groups.RebuildOrdered(ctx, log); err != nil {
		return fmt.Errorf("rebuild channels: %w", err)
	}
	if len(recorded) == 0 {
		s.recordOrder(log) // the record was missing: start it from this replay
	}
	results, err := s.groups.Sync(ctx)
	if err != nil {
		return err
	}
	s.applyGroupResults(ctx, results...)
	return nil
}

// ingestGroup stores a channel event after the write rules and the group
// state machine accepted it. The rules run first: a state change must not
// happen for an event that is then refused (the log would disagree).
func (s *Server) ingestGroup(ctx context.Context, ev *nostr.Event) (bool, string) {
	if groups.IsMetadataKind(ev.Kind) && ev.PubKey != s.key.PublicKey() {
		return false, "restricted: channel metadata (39000-39003) is signed by the relay only"
	}
	if reason := s.rejectEvent(ctx, ev); reason != "" {
		return false, reason
	}
	if s.wasDeletedFromChannel(ctx, ev) {
		return false, "blocked: this event was deleted from the channel"
	}
	res, err := s.groups.Apply(ctx, ev)
	var rej *groups.RejectError
	if errors.As(err, &rej) {
		return false, rej.Reason
	} else if err != nil {
		return false, "error: " + err.Error()
	}
	if err := s.storeEvent(ctx, ev); err != nil {
		return false, "error: could not store the event"
	}
	if groups.IsModerationKind(ev.Kind) {
		s.recordOrder([]*nostr.Event{ev})
	}
	s.applyGroupResults(ctx, res)
	s.broadcast(ev)
	return true, res.Note
}

// wasDeletedFromChannel reports whether a channel message was deleted
// before, by a 9005 in its channel or by its author's kind 5. The stored
// deletion is the tombstone: without this check anyone holding the signed
// message could re-publish it and undo the moderation.
func (s *Server) wasDeletedFromChannel(ctx context.Context, ev *nostr.Event) bool {
	if groups.IsModerationKind(ev.Kind) || groups.IsMetadataKind(ev.Kind) {
		return false // never deletable by 9005; 3900x are the relay's own
	}
	if s.wasDeleted(ctx, ev) {
		return true
	}
	group := s.groups.GroupOf(ev)
	f := nostr.Filter{Kinds: []int{nostr.KindSimpleGroupDeleteEvent}, Limit: 1,
		Tags: nostr.TagMap{"e": {ev.ID}, "h": {group}}}
	found := false
	s.query(ctx, &f, func(*nostr.Event) bool { found = true; return false })
	return found || s.predatesGroupDeletion(group, ev)
}

// predatesGroupDeletion reports whether ev was made before the latest
// 9008 that deleted its channel. The purge removes the channel's 9005s
// with its messages, so once the id is reused this is what stops anyone
// holding old signed messages from putting them back. The state machine
// keeps the time, so no store query is added to every channel message.
func (s *Server) predatesGroupDeletion(group string, ev *nostr.Event) bool {
	at, deleted := s.groups.DeletedAt(group)
	return deleted && ev.CreatedAt < at
}

// applyGroupResults deletes, stores and broadcasts what the state machine
// produced.
func (s *Server) applyGroupResults(ctx context.Context, results ...groups.Result) {
	for _, r := range results {
		for _, d := range r.Deletions {
			s.deleteMatching(ctx, d)
		}
		for _, ev := range append(r.Moderation, r.Metadata...) {
			if err := s.PublishInternal(ctx, ev); err != nil {
				s.log.Error("could not publish channel event", "kind", ev.Kind, "err", err)
			}
		}
		s.recordOrder(r.Moderation)
	}
}

func (s *Server) deleteMatching(ctx context.Context, d groups.Deletion) {
	var doomed []*nostr.Event
	for _, f := range d.Filters() {
		for _, ev := range s.queryAll(ctx, f) {
			if d.Matches(ev) {
				doomed = append(doomed, ev)
			}
		}
	}
	s.deleteEvents(ctx, doomed)
}

// groupVisibility hides channel events from those who may not read the
// channel; invites and join requests are for the channel's admins and
// their author only.
func (s *Server) groupVisibility(v policies.Viewer, ev *nostr.Event) bool {
	g := s.groups.GroupOf(ev)
	if g == "" {
		return true
	}
	if ev.Kind == kindCreateInvite || ev.Kind == kindJoinRequest {
		role := s.groups.Role(v.PubKey, g)
		return v.PubKey == ev.PubKey || role == groups.RoleOwner || role == groups.RoleAdmin
	}
	return s.groups.CanRead(v.PubKey, g)
}

// recordOrder appends state-changing events to the order log.
func (s *Server) recordOrder(evs []*nostr.Event) {
	ids := make([]string, 0, len(evs))
	for _, ev := range evs {
		if groups.IsModerationKind(ev.Kind) {
			ids = append(ids, ev.ID)
		}
	}
	if err := s.order.record(ids...); err != nil {
		s.log.Error("could not record channel order", "err", err)
	}
}

// lookupID returns a stored event by id, or nil.
func (s *Server) lookupID(id string) *nostr.Event {
	evs := s.QueryStored(context.Background(), nostr.Filter{IDs: []string{id}, Limit: 1})
	if len(evs) == 0 {
		return nil
	}
	return evs[0]
}

// queryAll pages through the store (newest first) past its per-query cap.
func (s *Server) queryAll(ctx context.Context, f nostr.Filter) []*nostr.Event {
	var out []*nostr.Event
	seen := map[string]bool{}
	f.Limit = s.cfg.Limits.MaxLimit
	for {
		page := s.QueryStored(ctx, f)
		fresh := 0
		for _, ev := range page {
			if !seen[ev.ID] {
				seen[ev.ID] = true
				out = append(out, ev)
				fresh++
			}
		}
		if len(page) < f.Limit || fresh == 0 {
			return out
		}
		until := page[len(page)-1].CreatedAt
		f.Until = &until
	}
}

// removeFromChannels drops a pubkey that left the workspace from every
// channel.
func (s *Server) removeFromChannels(pk string) {
	results, err := s.groups.Remove(context.Background(), pk)
	if err != nil {
		s.log.Error("could not remove from channels", "pubkey", pk, "err", err)
		return
	}
	s.applyGroupResults(context.Background(), results...)
}
