package groups

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// State holds every group of one relay. It is safe for concurrent use: reads
// share a lock, and Apply/Remove/Rebuild change state under an exclusive one,
// so a delivery-time CanRead never sees half of a change.
type State struct {
	mu      sync.RWMutex
	key     Signer
	relayPK string
	opts    Options

	groups map[string]*group
	seen   map[string]bool            // ids of applied state-changing events
	last   map[string]evKey           // latest state-changing event per group id; outlives deletion
	gone   map[string]nostr.Timestamp // created_at of the latest 9008 per group id; outlives re-creation
	pub    map[metaKey]stamp          // what was last emitted per group and 3900x kind
	strict bool                       // refuse events that would replay out of order (no order record)
}

// evKey orders state-changing events the way Rebuild replays them.
type evKey struct {
	at    nostr.Timestamp
	relay bool // the relay's own events sort after users' in the same second
	rank  int  // within a second: create, metadata, joins, removals, deletion
	id    string
}

func keyOf(ev *nostr.Event, relayPK string) evKey {
	return evKey{at: ev.CreatedAt, relay: ev.PubKey == relayPK, rank: kindRank(ev.Kind), id: ev.ID}
}

// kindRank puts a second's channel creation first and its deletion last,
// so "create a channel, then add people" in one second replays as it
// happened whatever the event ids; other changes keep id order.
func kindRank(kind int) int {
	switch kind {
	case kindCreateGroup:
		return 0
	case kindDeleteGroup:
		return 2
	default:
		return 1
	}
}

// compare returns -1, 0 or +1 as k sorts before, with or after o.
func (k evKey) compare(o evKey) int {
	switch {
	case k.at != o.at:
		return cmp.Compare(k.at, o.at)
	case k.relay != o.relay:
		if k.relay {
			return 1
		}
		return -1
	case k.rank != o.rank:
		return cmp.Compare(k.rank, o.rank)
	}
	return strings.Compare(k.id, o.id)
}

type metaKey struct {
	group string
	kind  int
}

// stamp remembers the last emitted 3900x: its tags (to emit only changes)
// and created_at (to keep replaceable events strictly increasing).
type stamp struct {
	tags string
	at   nostr.Timestamp
}

// New returns an empty State that signs with relayKey.
func New(relayKey Signer, opts Options) *State {
	if opts.MaxSkew <= 0 {
		opts.MaxSkew = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &State{key: relayKey, relayPK: relayKey.PublicKey(), opts: opts, strict: !opts.RecordsOrder}
	s.reset()
	return s
}

// reset forgets everything except the 3900x clocks, which must keep rising
// across a rebuild or clients would ignore the new events as stale.
func (s *State) reset() {
	s.groups = map[string]*group{}
	s.seen = map[string]bool{}
	s.last = map[string]evKey{}
	s.gone = map[string]nostr.Timestamp{}
	if s.pub == nil {
		s.pub = map[metaKey]stamp{}
	}
	for k, st := range s.pub {
		s.pub[k] = stamp{at: st.at}
	}
}

// DeletedAt returns the created_at of the latest 9008 that deleted group,
// if one did (the group may exist again since). The relay refuses events
// made before it: the purge removed their tombstones with them.
func (s *State) DeletedAt(group string) (nostr.Timestamp, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	at, ok := s.gone[group]
	return at, ok
}

// GroupOf returns the group an event belongs to: its "h" tag, or its "d" tag
// for the relay-signed 39000-39003. It returns "" for events of no group.
func (s *State) GroupOf(ev *nostr.Event) string { return groupOf(ev) }

// CanRead reports whether pk may read the group's events. Public groups are
// readable by anyone the workspace lets read (that is the relay's check, not
// this one); private groups by their members only. Unknown groups are
// unreadable, so events of a deleted group cannot leak before they are purged.
func (s *State) CanRead(pk, group string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g, ok := s.groups[group]
	if !ok {
		return false
	}
	if !g.private {
		return true
	}
	_, member := g.members[pk]
	return member
}

// CanWrite reports whether pk may post content to the group: members only,
// in every group (see the package documentation).
func (s *State) CanWrite(pk, group string) bool {
	return s.Role(pk, group) != ""
}

// Role returns pk's role in the group, or "" if pk is not a member.
func (s *State) Role(pk, group string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if g, ok := s.groups[group]; ok {
		return g.members[pk]
	}
	return ""
}

// MembersOf returns the group's members sorted by pubkey (nil if unknown).
func (s *State) MembersOf(group string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if g, ok := s.groups[group]; ok {
		return slices.Sorted(maps.Keys(g.members))
	}
	return nil
}

// Group returns a snapshot of one group.
func (s *State) Group(id string) (GroupInfo, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if g, ok := s.groups[id]; ok {
		return g.info(), true
	}
	return GroupInfo{}, false
}

// Groups returns snapshots of every group, sorted by id.
func (s *State) Groups() []GroupInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]GroupInfo, 0, len(s.groups))
	for _, id := range slices.Sorted(maps.Keys(s.groups)) {
		out = append(out, s.groups[id].info())
	}
	return out
}
