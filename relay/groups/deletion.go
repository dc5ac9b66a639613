package groups

import (
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// Deletion tells the store which events an applied event removes. Query the
// store with [Deletion.Filters] and delete the results for which
// [Deletion.Matches] is true; the second step matters because a filter cannot
// express every condition (see Matches).
type Deletion struct {
	// Group confines the deletion to events of this group.
	Group string
	// IDs are the events to delete (9005). Empty means the whole group (9008,
	// or a group whose last member was removed by the relay).
	IDs []string
	// Author, when set, limits the deletion to that author's events: the
	// fallback for a member's 9005 when Options.Lookup is unavailable.
	Author string
	// Keep is an event never to delete, the one that caused the deletion,
	// kept as the record of who did it.
	Keep string
}

// Filters returns store queries that find every candidate.
func (d Deletion) Filters() nostr.Filters {
	if len(d.IDs) > 0 {
		f := nostr.Filter{IDs: d.IDs, Tags: nostr.TagMap{"h": {d.Group}}}
		if d.Author != "" {
			f.Authors = []string{d.Author}
		}
		return nostr.Filters{f}
	}
	return nostr.Filters{
		{Tags: nostr.TagMap{"h": {d.Group}}},
		{Kinds: slices.Clone(metaKinds), Tags: nostr.TagMap{"d": {d.Group}}},
	}
}

// Matches reports whether ev is to be deleted. A targeted deletion never
// removes moderation events, join/leave requests or metadata: those are the
// log the state is rebuilt from, and deleting one would change history.
func (d Deletion) Matches(ev *nostr.Event) bool {
	if ev.ID == d.Keep || groupOf(ev) != d.Group {
		return false
	}
	if len(d.IDs) == 0 {
		return true
	}
	if !slices.Contains(d.IDs, ev.ID) || IsModerationKind(ev.Kind) || IsMetadataKind(ev.Kind) {
		return false
	}
	return d.Author == "" || ev.PubKey == d.Author
}
