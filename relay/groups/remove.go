package groups

import (
	"context"
	"maps"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// Remove takes pk out of every group, for a workspace ban: it withdraws
// pending join requests too, and overrides last-owner protection (ownership
// passes on; an emptied group is deleted). Each removal is a relay-signed
// 9001 in Result.Moderation, so the log — and a later Rebuild — records it.
// Results come in group id order; on error, those already applied are
// returned with it.
func (s *State) Remove(ctx context.Context, pk string) ([]Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Result
	for _, gid := range slices.Sorted(maps.Keys(s.groups)) {
		g := s.groups[gid]
		if _, member := g.members[pk]; !member && !g.pending[pk] {
			continue
		}
		ev := &nostr.Event{
			Kind:      kindRemoveUser,
			CreatedAt: s.relayTime(gid),
			Tags:      nostr.Tags{{"h", gid}, {"p", pk}},
			Content:   "removed from the workspace",
		}
		if err := s.key.SignEvent(ctx, ev); err != nil {
			return out, err
		}
		res, err := s.apply(ctx, ev, live)
		if err != nil {
			return out, err
		}
		res.Moderation = append([]*nostr.Event{ev}, res.Moderation...)
		out = append(out, res)
	}
	return out, nil
}

// relayTime is a created_at for a new relay event in gid that sorts after
// the group's latest change, as the ordering rule requires, even when that
// change carries a timestamp slightly ahead of the relay clock.
func (s *State) relayTime(gid string) nostr.Timestamp {
	t := nostr.Timestamp(s.opts.Now().Unix())
	if last, ok := s.last[gid]; ok && t <= last.at {
		t = last.at + 1
	}
	return t
}
