package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// metadata signs the 39000-39003 events of g whose tags differ from what was
// last emitted, and returns them with the stamps to commit once the whole
// change succeeds. A nil g (deleted group) emits nothing.
func (s *State) metadata(ctx context.Context, gid string, g *group) ([]*nostr.Event, map[metaKey]stamp, error) {
	if g == nil {
		return nil, nil, nil
	}
	var out []*nostr.Event
	stamps := map[metaKey]stamp{}
	now := nostr.Timestamp(s.opts.Now().Unix())
	for _, kind := range metaKinds {
		k := metaKey{gid, kind}
		tags := metadataTags(g, kind)
		enc := canonical(tags)
		prev := s.pub[k]
		if prev.tags == enc {
			continue
		}
		// Replaceable events are ordered by created_at alone: the new one
		// must be strictly newer or stores would keep the old.
		at := max(now, prev.at+1)
		ev := &nostr.Event{Kind: kind, CreatedAt: at, Tags: tags}
		if err := s.key.SignEvent(ctx, ev); err != nil {
			return nil, nil, fmt.Errorf("sign group %s kind %d: %w", gid, kind, err)
		}
		out = append(out, ev)
		stamps[k] = stamp{tags: enc, at: at}
	}
	return out, stamps, nil
}

// forgetMetadata marks a deleted group's events as no longer emitted while
// keeping their clocks, so a group re-created under the same id publishes
// events newer than any stale copy.
func (s *State) forgetMetadata(gid string) {
	for _, kind := range metaKinds {
		k := metaKey{gid, kind}
		if st, ok := s.pub[k]; ok {
			s.pub[k] = stamp{at: st.at}
		}
	}
}

// metadataTags builds the tags of one relay-signed kind in a fixed order
// (members sorted by pubkey), so equal state always yields equal events.
func metadataTags(g *group, kind int) nostr.Tags {
	tags := nostr.Tags{{"d", g.id}}
	switch kind {
	case kindMetadata:
		tags = append(tags, nostr.Tag{"name", g.name})
		if g.about != "" {
			tags = append(tags, nostr.Tag{"about", g.about})
		}
		if g.picture != "" {
			tags = append(tags, nostr.Tag{"picture", g.picture})
		}
		tags = append(tags, nostr.Tag{pick(g.private, "private", "public")},
			nostr.Tag{pick(g.closed, "closed", "open")}, nostr.Tag{"restricted"})
	case kindAdmins:
		for _, pk := range slices.Sorted(maps.Keys(g.members)) {
			if r := g.members[pk]; rank(r) >= rank(RoleAdmin) {
				tags = append(tags, nostr.Tag{"p", pk, r})
			}
		}
	case kindMembers:
		for _, pk := range slices.Sorted(maps.Keys(g.members)) {
			tags = append(tags, nostr.Tag{"p", pk})
		}
	case kindRoles:
		for _, rd := range roleDescriptions {
			tags = append(tags, nostr.Tag{"role", rd[0], rd[1]})
		}
	}
	return tags
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// canonical encodes tags for comparison; tags are built in a fixed order,
// so equal encodings mean equal content.
func canonical(tags nostr.Tags) string {
	b, _ := json.Marshal(tags) // []string slices cannot fail to encode
	return string(b)
}
