package groups

import (
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// mode says whether an event arrives live or is replayed from the log. A
// replay trusts what the log says was allowed at the time: it skips the clock
// window and the workspace-membership checks, which reflect today.
type mode int

const (
	live mode = iota
	replay
)

// outcome is what an accepted event does, computed on a copy of the group so
// that Check can discard it and Apply can commit it only once signed.
type outcome struct {
	ev        *nostr.Event
	gid       string
	next      *group       // the group afterwards; nil if deleted
	changed   bool         // next must be committed (state-changing kinds)
	echo      *nostr.Event // unsigned relay 9000/9001 recording the relay's decision
	deletions []Deletion
	note      string
}

// action is the context a kind handler decides in.
type action struct {
	s     *State
	ev    *nostr.Event
	m     mode
	g     *group // copy of the current group; nil if it does not exist
	relay bool   // signed by the relay key: authorised for everything
	out   *outcome
}

// role is the author's role in the group ("" if none).
func (a *action) role() string {
	if a.g == nil {
		return ""
	}
	return a.g.members[a.ev.PubKey]
}

// atLeast reports whether the author holds role or higher (or is the relay).
func (a *action) atLeast(role string) bool {
	return a.relay || rank(a.role()) >= rank(role)
}

// inWorkspace applies Options.WorkspaceMember, live only (see mode).
func (a *action) inWorkspace(pk string) bool {
	wm := a.s.opts.WorkspaceMember
	return a.m == replay || pk == a.s.relayPK || wm == nil || wm(pk)
}

// Check validates ev from its author against the current state without
// applying it. It returns "" to accept, or a NIP-01 prefixed reason
// ("invalid: …", "restricted: …", "duplicate: …"). Events that belong to no
// group are accepted: they are not this package's business.
func (s *State) Check(ev *nostr.Event) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, reason := s.evaluate(ev, live)
	return reason
}

// evaluate decides ev against the current state; the caller holds the lock.
// A nil outcome with no reason means there is nothing to apply.
func (s *State) evaluate(ev *nostr.Event, m mode) (*outcome, string) {
	if IsMetadataKind(ev.Kind) {
		if ev.PubKey != s.relayPK {
			return nil, "restricted: group metadata (39000-39003) is signed by the relay only"
		}
		return nil, ""
	}
	if !IsModerationKind(ev.Kind) {
		if len(named(ev.Tags, "h")) == 0 {
			return nil, ""
		}
		return nil, s.checkContent(ev)
	}
	gid, reason := groupTag(ev)
	if reason != "" {
		return nil, reason
	}
	if reason := s.checkTiming(ev, gid, m); reason != "" {
		return nil, reason
	}
	handle, ok := handlers[ev.Kind]
	if !ok {
		return nil, fmt.Sprintf("invalid: moderation kind %d is not supported", ev.Kind)
	}
	a := &action{s: s, ev: ev, m: m, relay: ev.PubKey == s.relayPK,
		out: &outcome{ev: ev, gid: gid, changed: changesState(ev.Kind)}}
	if g, ok := s.groups[gid]; ok {
		a.g = g.clone()
	} else if ev.Kind != kindCreateGroup {
		return nil, "invalid: no such group " + gid
	}
	if reason := handle(a); reason != "" {
		return nil, reason
	}
	// Handlers change a.g in place, or set it to nil to delete the group.
	a.out.next = a.g
	return a.out, ""
}

// handlers maps each supported moderation kind to its rule.
var handlers = map[int]func(*action) string{
	kindCreateGroup:  (*action).createGroup,
	kindEditMetadata: (*action).editMetadata,
	kindDeleteGroup:  (*action).deleteGroup,
	kindCreateInvite: (*action).createInvite,
	kindDeleteEvent:  (*action).deleteEvent,
	kindPutUser:      (*action).putUser,
	kindRemoveUser:   (*action).removeUser,
	kindJoinRequest:  (*action).join,
	kindLeaveRequest: (*action).leave,
}

// checkTiming refuses moderation events far from the relay clock, and
// state-changing events that are duplicates or that would replay in a
// different order than they were applied (see the package documentation).
func (s *State) checkTiming(ev *nostr.Event, gid string, m mode) string {
	// The relay's own events are exempt: its clock is the reference, and
	// relayTime may step just past a future-dated user event.
	if m == live && ev.PubKey != s.relayPK {
		skew := s.opts.Now().Sub(ev.CreatedAt.Time())
		if skew > s.opts.MaxSkew || skew < -s.opts.MaxSkew {
			return fmt.Sprintf("invalid: created_at is more than %s from the relay clock", s.opts.MaxSkew.Round(time.Second))
		}
	}
	if !changesState(ev.Kind) {
		return ""
	}
	if s.seen[ev.ID] {
		return "duplicate: event already applied"
	}
	if s.strict {
		if last, ok := s.last[gid]; ok && keyOf(ev, s.relayPK).compare(last) <= 0 {
			return "invalid: created_at precedes the group's latest change; sign again with the current time"
		}
	}
	return ""
}

// checkContent applies the group rules to an ordinary event with an h tag:
// the group must exist, the author must be a member, and thread (NIP-10) and
// mention tags must be well formed.
func (s *State) checkContent(ev *nostr.Event) string {
	gid, reason := groupTag(ev)
	if reason != "" {
		return reason
	}
	g, ok := s.groups[gid]
	if !ok {
		return "invalid: no such group " + gid
	}
	if _, member := g.members[ev.PubKey]; !member {
		return "restricted: only members of " + gid + " may post; send a join request (kind 9021)"
	}
	return checkThreadTags(ev.Tags)
}
