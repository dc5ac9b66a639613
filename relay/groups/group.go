package groups

import (
	"maps"
	"slices"
)

// GroupInfo is a snapshot of one group, safe to keep and modify.
type GroupInfo struct {
	ID      string
	Name    string
	About   string
	Picture string
	// Private means only members may read the group.
	Private bool
	// Closed means joining needs an invite code or an admin's approval.
	Closed bool
	// Members lists every member with their role, sorted by pubkey.
	Members []Member
	// Pending lists pubkeys whose join requests await approval, sorted.
	Pending []string
}

// Member is one group member and their role.
type Member struct {
	PubKey string
	Role   string
}

// group is the mutable state of one group. It is copied before every change
// (see clone) so a refused or unsignable change leaves the original intact.
type group struct {
	id      string
	name    string
	about   string
	picture string
	private bool
	closed  bool
	members map[string]string // pubkey → role
	pending map[string]bool   // pubkeys with an open join request
	invites map[string]bool   // unused invite codes
}

func newGroup(id string) *group {
	return &group{
		id:      id,
		name:    id,
		members: map[string]string{},
		pending: map[string]bool{},
		invites: map[string]bool{},
	}
}

func (g *group) clone() *group {
	c := *g
	c.members = maps.Clone(g.members)
	c.pending = maps.Clone(g.pending)
	c.invites = maps.Clone(g.invites)
	return &c
}

func (g *group) info() GroupInfo {
	gi := GroupInfo{
		ID: g.id, Name: g.name, About: g.about, Picture: g.picture,
		Private: g.private, Closed: g.closed,
		Pending: slices.Sorted(maps.Keys(g.pending)),
	}
	for _, pk := range slices.Sorted(maps.Keys(g.members)) {
		gi.Members = append(gi.Members, Member{PubKey: pk, Role: g.members[pk]})
	}
	return gi
}

// owners counts the group's owners, for last-owner protection.
func (g *group) owners() int {
	n := 0
	for _, r := range g.members {
		if r == RoleOwner {
			n++
		}
	}
	return n
}

// isLastOwner reports whether removing or demoting pk would leave no owner.
func (g *group) isLastOwner(pk string) bool {
	return g.members[pk] == RoleOwner && g.owners() == 1
}

// put adds pk or changes their role. An empty role keeps an existing
// member's role and makes a newcomer a plain member, so the relay's echo of a
// join can be replayed any number of times without demoting anyone.
func (g *group) put(pk, role string) {
	delete(g.pending, pk)
	if role == "" {
		if _, ok := g.members[pk]; ok {
			return
		}
		role = RoleMember
	}
	g.members[pk] = role
}

// remove drops pk (and any pending request). When the last owner goes, which
// only the relay may cause, the most senior remaining member inherits
// ownership so the group never lacks an owner. It reports whether anyone is
// left; an empty group is deleted by the caller.
func (g *group) remove(pk string) bool {
	delete(g.pending, pk)
	wasOwner := g.members[pk] == RoleOwner
	delete(g.members, pk)
	if len(g.members) == 0 {
		return false
	}
	if wasOwner && g.owners() == 0 {
		g.members[g.successor()] = RoleOwner
	}
	return true
}

// successor picks who inherits a group whose last owner was removed: the
// admin with the lowest pubkey, else the member with the lowest pubkey.
// Lowest pubkey is arbitrary but deterministic, which replay needs.
func (g *group) successor() string {
	best := ""
	for _, pk := range slices.Sorted(maps.Keys(g.members)) {
		if g.members[pk] == RoleAdmin {
			return pk
		}
		if best == "" {
			best = pk
		}
	}
	return best
}
