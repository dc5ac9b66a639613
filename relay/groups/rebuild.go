package groups

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// Rebuild replaces the state with the one the log describes, after a restart
// or if the state was lost. events may be everything the store holds for
// groups: state-changing events (9000-9009, 9021, 9022) are replayed in the
// order described in the package documentation, and the relay's own
// 39000-39003 tell it what clients currently see, so that a following
// [State.Sync] re-emits only what differs. Other events are ignored, as are
// log entries the rules refuse (reported to Options.Logger). It returns an
// error only if ctx ends first, leaving the state incomplete.
func (s *State) Rebuild(ctx context.Context, events []*nostr.Event) error {
	return s.rebuild(ctx, events, true)
}

// LogOrder compares state-changing events in the order Rebuild replays
// them (see the package documentation); relayPK is the relay's key. A
// caller that records its order of application but lost part of the record
// sorts the rest with it, so that a channel's creation still comes before
// the changes made to it in the same second.
func LogOrder(relayPK string) func(a, b *nostr.Event) int {
	return func(a, b *nostr.Event) int {
		return keyOf(a, relayPK).compare(keyOf(b, relayPK))
	}
}

// RebuildOrdered is Rebuild that replays state-changing events in the order
// given (the order they were applied live, as recorded by a caller using
// Options.RecordsOrder) instead of sorting them.
func (s *State) RebuildOrdered(ctx context.Context, events []*nostr.Event) error {
	return s.rebuild(ctx, events, false)
}

func (s *State) rebuild(ctx context.Context, events []*nostr.Event, sortLog bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset()
	var log []*nostr.Event
	for _, ev := range events {
		switch {
		case IsMetadataKind(ev.Kind) && ev.PubKey == s.relayPK:
			s.seedMetadata(ev)
		case changesState(ev.Kind):
			log = append(log, ev)
		}
	}
	if sortLog {
		slices.SortFunc(log, LogOrder(s.relayPK))
	}
	for i, ev := range log {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if ev.Kind == kindDeleteGroup {
			// Stored, so it was applied once; its group's own log is
			// purged, so the replay cannot apply it again.
			s.noteDeleted(groupOf(ev), ev.CreatedAt)
		}
		if _, err := s.apply(ctx, ev, replay); err != nil {
			s.skipped(ev, err)
		}
	}
	return nil
}

// skipped reports a log entry the rules refused. Entries of groups the log
// never creates are expected (a 9008 outlives the group it purged) and
// reported at debug level; anything else suggests a damaged log.
func (s *State) skipped(ev *nostr.Event, err error) {
	if s.opts.Logger == nil {
		return
	}
	level := slog.LevelWarn
	if _, known := s.last[groupOf(ev)]; !known {
		level = slog.LevelDebug
	}
	s.opts.Logger.Log(context.Background(), level, "groups: log entry skipped on rebuild",
		slog.String("id", ev.ID), slog.Int("kind", ev.Kind), slog.String("reason", err.Error()))
}

// seedMetadata records a stored relay-signed 3900x as the last one emitted,
// unless a newer one was already seen.
func (s *State) seedMetadata(ev *nostr.Event) {
	k := metaKey{groupOf(ev), ev.Kind}
	if prev, ok := s.pub[k]; ok && prev.tags != "" && prev.at > ev.CreatedAt {
		return
	}
	s.pub[k] = stamp{tags: canonical(ev.Tags), at: max(ev.CreatedAt, s.pub[k].at)}
}

// Sync brings the relay-signed 39000-39003 in line with the state, typically
// right after Rebuild: it returns, per group, the events whose content
// differs from the stored ones, and for groups that no longer exist a
// whole-group [Deletion] that purges their stale metadata and content.
func (s *State) Sync(ctx context.Context) ([]Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Result
	for _, gid := range slices.Sorted(maps.Keys(s.groups)) {
		meta, stamps, err := s.metadata(ctx, gid, s.groups[gid])
		if err != nil {
			return out, err
		}
		maps.Copy(s.pub, stamps)
		if len(meta) > 0 {
			out = append(out, Result{Group: gid, Metadata: meta})
		}
	}
	stale := map[string]bool{}
	for k, st := range s.pub {
		if _, ok := s.groups[k.group]; !ok && st.tags != "" {
			stale[k.group] = true
		}
	}
	for _, gid := range slices.Sorted(maps.Keys(stale)) {
		s.forgetMetadata(gid)
		out = append(out, Result{Group: gid, Deletions: []Deletion{{Group: gid}}})
	}
	return out, nil
}
