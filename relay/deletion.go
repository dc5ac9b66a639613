package relay

import (
	"context"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// NIP-09: a kind 5 event deletes the author's own events named by its `e`
// (id) and `a` (address) tags. A deletion naming someone else's event is
// refused as a whole, so a client learns its request was wrong instead of
// seeing a partial success.

// checkDeletion refuses deletions that target events of another author.
func (s *Server) checkDeletion(ctx context.Context, del *nostr.Event) string {
	for _, target := range s.deletionTargets(ctx, del) {
		if target.PubKey != del.PubKey {
			return "blocked: you can only delete your own events"
		}
	}
	for _, t := range del.Tags {
		if len(t) >= 2 && t[0] == "a" {
			if parts := strings.SplitN(t[1], ":", 3); len(parts) == 3 && parts[1] != del.PubKey {
				return "blocked: you can only delete your own events"
			}
		}
	}
	return ""
}

// applyDeletion deletes the targets once the deletion event is stored (the
// stored kind 5 is what keeps them from being re-published).
func (s *Server) applyDeletion(ctx context.Context, del *nostr.Event) {
	var doomed []*nostr.Event
	for _, target := range s.deletionTargets(ctx, del) {
		if target.PubKey == del.PubKey && target.Kind != nostr.KindDeletion {
			doomed = append(doomed, target)
		}
	}
	for _, ev := range doomed {
		if err := s.store.DeleteEvent(ctx, ev); err != nil {
			s.log.Warn("nip-09 delete failed", "id", ev.ID, "err", err)
		}
		s.unindex(ev)
	}
	// Runs inside the committer (after the kind 5 is written): the batch's
	// own sync makes these deletions durable with it.
}

func (s *Server) deletionTargets(ctx context.Context, del *nostr.Event) []*nostr.Event {
	var out []*nostr.Event
	for _, f := range deletionFilters(del) {
		s.query(ctx, &f, func(ev *nostr.Event) bool {
			out = append(out, ev)
			return true
		})
	}
	return out
}

func deletionFilters(del *nostr.Event) []nostr.Filter {
	var ids []string
	var out []nostr.Filter
	for _, t := range del.Tags {
		if len(t) < 2 {
			continue
		}
		switch t[0] {
		case "e":
			ids = append(ids, t[1])
		case "a":
			if f, ok := addressFilter(t[1], del.CreatedAt); ok {
				out = append(out, f)
			}
		}
	}
	if len(ids) > 0 {
		out = append(out, nostr.Filter{IDs: ids, Limit: len(ids)})
	}
	return out
}

// addressFilter turns "kind:pubkey:d" into a filter for the versions of
// that address up to the deletion's time.
func addressFilter(addr string, until nostr.Timestamp) (nostr.Filter, bool) {
	parts := strings.SplitN(addr, ":", 3)
	if len(parts) != 3 {
		return nostr.Filter{}, false
	}
	kind, err := strconv.Atoi(parts[0])
	if err != nil {
		return nostr.Filter{}, false
	}
	return nostr.Filter{Kinds: []int{kind}, Authors: []string{parts[1]},
		Tags: nostr.TagMap{"d": []string{parts[2]}}, Until: &until}, true
}

// wasDeleted reports whether ev's author deleted it before (the stored kind 5
// is the tombstone). khatru's own check queries a "#e" tag key, which the
// store does not index, so toolbus checks itself.
func (s *Server) wasDeleted(ctx context.Context, ev *nostr.Event) bool {
	f := nostr.Filter{Kinds: []int{nostr.KindDeletion}, Authors: []string{ev.PubKey},
		Tags: nostr.TagMap{"e": []string{ev.ID}}, Limit: 1}
	found := false
	s.query(ctx, &f, func(*nostr.Event) bool { found = true; return false })
	return found
}
