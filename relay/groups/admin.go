package groups

import (
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// Length limits on metadata, so one edit cannot bloat every 39000 served.
const (
	maxName    = 128
	maxAbout   = 4096
	maxPicture = 2048
	maxCode    = 128
)

// createGroup (9007): any workspace member may create a group with a new id
// and becomes its owner. Metadata tags are honoured here too, so a private
// channel is private from its first moment rather than after a 9002.
func (a *action) createGroup() string {
	gid := a.out.gid
	if a.g != nil {
		return "duplicate: group " + gid + " already exists"
	}
	if !a.inWorkspace(a.ev.PubKey) {
		return "restricted: only workspace members may create groups"
	}
	g := newGroup(gid)
	if reason := setMetadata(g, a.ev.Tags); reason != "" {
		return reason
	}
	g.members[a.ev.PubKey] = RoleOwner
	a.g = g
	return ""
}

// editMetadata (9002): admins and owners change the fields present in the
// event; absent fields keep their value.
func (a *action) editMetadata() string {
	if !a.atLeast(RoleAdmin) {
		return "restricted: only admins and owners may edit group metadata"
	}
	return setMetadata(a.g, a.ev.Tags)
}

// setMetadata copies name/about/picture and the private/public and
// closed/open flags from tags into g. An empty name falls back to the id so
// every group stays displayable.
func setMetadata(g *group, tags nostr.Tags) string {
	fields := []struct {
		tag string
		max int
		dst *string
	}{{"name", maxName, &g.name}, {"about", maxAbout, &g.about}, {"picture", maxPicture, &g.picture}}
	for _, f := range fields {
		if v, ok := tagValue(tags, f.tag); ok {
			if len(v) > f.max {
				return fmt.Sprintf("invalid: %s is longer than %d bytes", f.tag, f.max)
			}
			*f.dst = v
		}
	}
	if g.name == "" {
		g.name = g.id
	}
	for _, pair := range [][2]string{{"private", "public"}, {"closed", "open"}} {
		on, off := hasFlag(tags, pair[0]), hasFlag(tags, pair[1])
		if on && off {
			return fmt.Sprintf("invalid: %s and %s contradict each other", pair[0], pair[1])
		}
		if on || off {
			*flagOf(g, pair[0]) = on
		}
	}
	return ""
}

func flagOf(g *group, name string) *bool {
	if name == "private" {
		return &g.private
	}
	return &g.closed
}

// deleteGroup (9008): owners only. The group's events, its log included, are
// to be purged; the 9008 itself is kept as the record of who did it.
func (a *action) deleteGroup() string {
	if !a.atLeast(RoleOwner) {
		return "restricted: only owners may delete the group"
	}
	a.out.deletions = append(a.out.deletions, Deletion{Group: a.out.gid, Keep: a.ev.ID})
	a.g = nil
	return ""
}

// createInvite (9009): admins and owners register a single-use code that
// admits one user to a closed group (9021 with a matching "code" tag).
func (a *action) createInvite() string {
	if !a.atLeast(RoleAdmin) {
		return "restricted: only admins and owners may create invites"
	}
	code, _ := tagValue(a.ev.Tags, "code")
	switch {
	case code == "" || len(code) > maxCode:
		return fmt.Sprintf("invalid: create-invite needs a code tag of 1-%d bytes", maxCode)
	case a.g.invites[code]:
		return "duplicate: invite code already exists"
	}
	a.g.invites[code] = true
	return ""
}

// deleteEvent (9005): admins and owners may delete any content of their
// group; anyone else only their own. The [Deletion] is always confined to
// the group, so an admin of one group cannot reach into another.
func (a *action) deleteEvent() string {
	var ids []string
	for _, t := range named(a.ev.Tags, "e") {
		if len(t) < 2 || !nostr.IsValid32ByteHex(t[1]) {
			return "invalid: e tag must hold a 64-character lowercase hex event id"
		}
		ids = append(ids, t[1])
	}
	if len(ids) == 0 {
		return "invalid: delete-event needs at least one e tag"
	}
	d := Deletion{Group: a.out.gid, IDs: ids}
	if !a.atLeast(RoleAdmin) {
		d.Author = a.ev.PubKey
	}
	if reason := a.checkTargets(d); reason != "" {
		return reason
	}
	a.out.deletions = append(a.out.deletions, d)
	return ""
}

// checkTargets refuses a deletion up front when Options.Lookup can tell it
// would not match: the target is elsewhere, is part of the group log, or (for
// non-admins) belongs to someone else.
func (a *action) checkTargets(d Deletion) string {
	lookup := a.s.opts.Lookup
	if lookup == nil || a.m == replay {
		return ""
	}
	for _, id := range d.IDs {
		ev := lookup(id)
		if ev == nil {
			if d.Author != "" {
				return "invalid: event " + id + " not found"
			}
			continue
		}
		if d.Author != "" && ev.PubKey != d.Author {
			return "restricted: members may delete only their own events"
		}
		if !d.Matches(ev) {
			return "invalid: event " + id + " is not deletable content of group " + d.Group
		}
	}
	return ""
}
