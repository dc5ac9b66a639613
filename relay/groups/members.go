package groups

import (
	"github.com/nbd-wtf/go-nostr"
)

// putUser (9000): admins and owners add members or change roles. Only owners
// grant admin/owner or touch an admin's/owner's role, so an admin can never
// raise anyone to their own level or unseat a superior.
func (a *action) putUser() string {
	pk, p, reason := onePubkey(a.ev)
	if reason != "" {
		return reason
	}
	role, reason := tagRole(p)
	if reason != "" {
		return reason
	}
	cur := a.g.members[pk]
	switch {
	case !a.atLeast(RoleAdmin):
		return "restricted: only admins and owners may add members"
	case rank(role) >= rank(RoleAdmin) && !a.atLeast(RoleOwner):
		return "restricted: only owners may grant the admin or owner role"
	case role != "" && role != cur && rank(cur) >= rank(RoleAdmin) && !a.atLeast(RoleOwner):
		return "restricted: only owners may change an admin's or owner's role"
	case role != "" && role != RoleOwner && a.g.isLastOwner(pk):
		return "restricted: the last owner cannot be demoted; make someone else owner first"
	case cur == "" && !a.inWorkspace(pk):
		return "restricted: " + pk + " is not a workspace member"
	}
	a.g.put(pk, role)
	return ""
}

// removeUser (9001): admins remove members, owners remove anyone, and anyone
// may remove themselves; the last owner stays unless the relay removes them
// (a workspace ban), in which case ownership passes on (see group.remove).
// Removing someone whose join request is pending rejects the request.
func (a *action) removeUser() string {
	pk, _, reason := onePubkey(a.ev)
	if reason != "" {
		return reason
	}
	self := pk == a.ev.PubKey
	cur, member := a.g.members[pk]
	if !member {
		return a.rejectRequest(pk, self)
	}
	switch {
	case a.relay || self:
	case !a.atLeast(RoleAdmin):
		return "restricted: only admins and owners may remove members"
	case rank(cur) >= rank(RoleAdmin) && !a.atLeast(RoleOwner):
		return "restricted: only owners may remove an admin or owner"
	}
	if !a.relay && a.g.isLastOwner(pk) {
		return "restricted: the last owner cannot be removed; make someone else owner first"
	}
	a.drop(pk)
	return ""
}

// rejectRequest handles a remove-user aimed at a non-member: it withdraws a
// pending join request, and is a no-op for the relay so that the relay's own
// removals replay cleanly whatever happened in the meantime.
func (a *action) rejectRequest(pk string, self bool) string {
	switch {
	case a.g.pending[pk] && !self && !a.atLeast(RoleAdmin):
		return "restricted: only admins and owners may reject join requests"
	case a.g.pending[pk]:
		delete(a.g.pending, pk)
		return ""
	case a.relay:
		return ""
	}
	return "invalid: " + pk + " is not a member of " + a.out.gid
}

// drop removes pk and deletes the group if nobody is left.
func (a *action) drop(pk string) {
	if !a.g.remove(pk) {
		a.g = nil
		a.out.deletions = append(a.out.deletions, Deletion{Group: a.out.gid, Keep: a.ev.ID})
	}
}

// join (9021): an open group admits at once; a closed one admits with an
// unused invite code and otherwise records the request for an admin to
// approve with a 9000. The relay echoes an admission as its own 9000 so that
// clients following NIP-29 see the membership change.
func (a *action) join() string {
	pk, gid := a.ev.PubKey, a.out.gid
	if _, ok := a.g.members[pk]; ok {
		return "duplicate: already a member of " + gid
	}
	if !a.inWorkspace(pk) {
		return "restricted: only workspace members may join groups"
	}
	code, hasCode := tagValue(a.ev.Tags, "code")
	switch {
	case !a.g.closed:
	case hasCode && a.g.invites[code]:
		delete(a.g.invites, code)
	case hasCode:
		return "restricted: invalid or already used invite code"
	case a.g.pending[pk]:
		return "duplicate: join request already pending approval"
	default:
		a.g.pending[pk] = true
		a.out.note = "pending: " + gid + " is closed; an admin must approve the request"
		return ""
	}
	a.g.put(pk, "")
	a.out.echo = a.echo(kindPutUser, pk)
	return ""
}

// leave (9022): members leave at will, except the last owner, who must hand
// over or delete the group. A pending request is withdrawn instead.
func (a *action) leave() string {
	pk, gid := a.ev.PubKey, a.out.gid
	if _, ok := a.g.members[pk]; !ok {
		if a.g.pending[pk] {
			delete(a.g.pending, pk)
			return ""
		}
		return "invalid: not a member of " + gid
	}
	if a.g.isLastOwner(pk) {
		return "restricted: the last owner cannot leave; make someone else owner or delete the group"
	}
	a.drop(pk)
	a.out.echo = a.echo(kindRemoveUser, pk)
	return ""
}

// echo builds the relay's own record of a join or leave. It carries the
// request's created_at so that replay meets it right after the request
// (relay events sort after users' ones in the same second).
func (a *action) echo(kind int, pk string) *nostr.Event {
	return &nostr.Event{
		Kind:      kind,
		CreatedAt: a.ev.CreatedAt,
		Tags:      nostr.Tags{{"h", a.out.gid}, {"p", pk}},
	}
}
