package groups

import (
	"context"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// Result is what the relay must do after an event was applied.
type Result struct {
	// Group is the group the event belonged to ("" if none).
	Group string
	// Moderation holds relay-signed 9000/9001 events recording the relay's
	// own decisions (join admitted, leave, workspace ban). They are already
	// applied: store and broadcast them, but do not pass them to Apply.
	// They are part of the log Rebuild replays.
	Moderation []*nostr.Event
	// Metadata holds the relay-signed 39000-39003 events whose content
	// changed, to store (replacing the previous ones) and broadcast.
	Metadata []*nostr.Event
	// Deletions lists what to remove from the store.
	Deletions []Deletion
	// Note is an optional message for the author, e.g. "pending: …" for a
	// join request awaiting approval; suitable for a successful OK.
	Note string
}

// RejectError is returned by Apply for an event Check would refuse, which can
// happen when the state changed between the two calls.
type RejectError struct {
	// Reason is the NIP-01 prefixed message, as Check returns it.
	Reason string
}

// Error returns the reason, ready for an OK message.
func (e *RejectError) Error() string { return e.Reason }

// Apply applies an accepted event: moderation (9000-9020), join/leave
// (9021/9022), or ordinary group content (which changes no state). It checks
// again under the write lock, so a Check/Apply race cannot slip through, and
// commits nothing unless every relay event it produces is signed.
func (s *State) Apply(ctx context.Context, ev *nostr.Event) (Result, error) {
	if !IsModerationKind(ev.Kind) {
		// Content and metadata change nothing: a shared lock keeps chat
		// traffic from queueing behind itself.
		s.mu.RLock()
		defer s.mu.RUnlock()
		if _, reason := s.evaluate(ev, live); reason != "" {
			return Result{}, &RejectError{Reason: reason}
		}
		return Result{Group: groupOf(ev)}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.apply(ctx, ev, live)
}

// apply is Apply with the lock held. Replay neither signs nor emits: the
// echoes are already in the log and Sync refreshes metadata at the end.
func (s *State) apply(ctx context.Context, ev *nostr.Event, m mode) (Result, error) {
	out, reason := s.evaluate(ev, m)
	if reason != "" {
		return Result{}, &RejectError{Reason: reason}
	}
	if out == nil {
		return Result{Group: groupOf(ev)}, nil
	}
	res := Result{Group: out.gid, Deletions: out.deletions, Note: out.note}
	if !out.changed {
		return res, nil
	}
	if m == replay {
		out.echo = nil
		s.commit(out, nil)
		return res, nil
	}
	if out.echo != nil {
		if err := s.key.SignEvent(ctx, out.echo); err != nil {
			return Result{}, fmt.Errorf("sign group echo: %w", err)
		}
		res.Moderation = []*nostr.Event{out.echo}
	}
	meta, stamps, err := s.metadata(ctx, out.gid, out.next)
	if err != nil {
		return Result{}, err
	}
	res.Metadata = meta
	s.commit(out, stamps)
	return res, nil
}

// commit makes an outcome the current state.
func (s *State) commit(out *outcome, stamps map[metaKey]stamp) {
	s.seen[out.ev.ID] = true
	last := keyOf(out.ev, s.relayPK)
	if out.echo != nil {
		s.seen[out.echo.ID] = true
		if k := keyOf(out.echo, s.relayPK); k.compare(last) > 0 {
			last = k
		}
	}
	s.last[out.gid] = last
	if out.next == nil {
		delete(s.groups, out.gid)
		s.forgetMetadata(out.gid)
		s.noteDeleted(out.gid, out.ev.CreatedAt)
	} else {
		s.groups[out.gid] = out.next
	}
	for k, st := range stamps {
		s.pub[k] = st
	}
}

// groupOf is GroupOf without the receiver; it needs no state.
func groupOf(ev *nostr.Event) string {
	name := "h"
	if IsMetadataKind(ev.Kind) {
		name = "d"
	}
	if t := ev.Tags.Find(name); t != nil {
		return t[1]
	}
	return ""
}

// noteDeleted records that group was deleted at at (the latest wins).
func (s *State) noteDeleted(group string, at nostr.Timestamp) {
	if at > s.gone[group] {
		s.gone[group] = at
	}
}
