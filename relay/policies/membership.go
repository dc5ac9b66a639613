package policies

import (
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// Membership answers who belongs to the workspace. Answers must reflect the
// current state: rules consult it on every event and every delivery, which is
// what makes a ban take effect at once.
type Membership interface {
	// Open reports whether the workspace is in "open" mode (anyone may
	// write and read; bans still apply).
	Open() bool
	// IsMember reports whether pk may write and read (false when banned).
	IsMember(pk string) bool
	// IsBanned reports whether pk is banned.
	IsBanned(pk string) bool
}

// Viewer is the would-be recipient of an event: who they authenticated as,
// and the filter through which the event would reach them (nil when unknown,
// as in khatru's broadcast hook).
type Viewer struct {
	PubKey string
	Filter *nostr.Filter
}

// VisibleFunc decides whether an event may be delivered to a viewer. The
// engine calls every VisibleFunc on every stored and live delivery.
type VisibleFunc func(v Viewer, ev *nostr.Event) bool

// RestrictWrites refuses events from banned authors, and in members mode from
// authors who are not members. Authorship, not the connection's AUTH, is what
// is checked: a member's signed event relayed by someone else is still the
// member's.
func RestrictWrites(m Membership, exempt func(*nostr.Event) bool) func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if exempt != nil && exempt(ev) {
			return false, ""
		}
		if m.IsBanned(ev.PubKey) {
			return true, "blocked: this pubkey is banned from the workspace"
		}
		if !m.Open() && !m.IsMember(ev.PubKey) {
			return true, "restricted: only workspace members may publish here"
		}
		return false, ""
	}
}

// MembersOnly hides events from viewers who are not members, except those
// public(v, ev) allows (gift wraps addressed to the viewer, say). In open mode
// everyone sees everything; banned viewers see only what public allows.
func MembersOnly(m Membership, public VisibleFunc) VisibleFunc {
	return func(v Viewer, ev *nostr.Event) bool {
		if v.PubKey != "" && m.IsBanned(v.PubKey) {
			return public != nil && public(v, ev)
		}
		if m.Open() || (v.PubKey != "" && m.IsMember(v.PubKey)) {
			return true
		}
		return public != nil && public(v, ev)
	}
}

// ReadGate decides per filter what a reader who is not an authenticated
// member gets. A filter that could match something public (canServePublic) is
// served, with only public events: a plain liveness REQ still gets its EOSE.
// A filter that can only match member events is closed with auth-required:
// (or restricted: when the reader is authenticated but not a member), so
// NIP-42 clients know to authenticate and retry.
func ReadGate(m Membership, canServePublic func(nostr.Filter) bool) func(context.Context, nostr.Filter) (bool, string) {
	return func(ctx context.Context, f nostr.Filter) (bool, string) {
		pk := Authed(ctx)
		if m.Open() && (pk == "" || !m.IsBanned(pk)) {
			return false, ""
		}
		if pk != "" && m.IsMember(pk) {
			return false, ""
		}
		if canServePublic != nil && canServePublic(f) {
			return false, ""
		}
		switch {
		case pk == "":
			return true, "auth-required: this workspace is readable by its members only"
		case m.IsBanned(pk):
			return true, "blocked: this pubkey is banned from the workspace"
		default:
			return true, "restricted: only workspace members may read here"
		}
	}
}

// KindsOnlyAmong reports whether f is restricted to kinds that are all in
// set: a filter with no kinds could match anything.
func KindsOnlyAmong(f nostr.Filter, set []int) bool {
	if len(f.Kinds) == 0 {
		return false
	}
	for _, k := range f.Kinds {
		if !slices.Contains(set, k) {
			return false
		}
	}
	return true
}
