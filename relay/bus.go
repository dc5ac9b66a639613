package relay

import (
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/policies"
)

// The tool bus, relay side. Tool calls and results are kind 25910 (plaintext)
// or NIP-59 gift wraps (1059, 21059) of a 25910. The relay:
//   - answers OK true even when nobody listens (the mailbox keeps them);
//   - never writes them to the main store (they are not workspace content);
//   - delivers plaintext 25910 only to its authenticated author or its
//     p-tagged recipient, whatever the filter;
//   - delivers gift wraps to a subscriber whose filter names the recipient
//     in #p (the content is encrypted to that recipient);
//   - accepts plaintext 25910 only from members (author), and gift wraps —
//     whose author is a throwaway key — from authenticated members, or from
//     anyone when addressed to a member and anonymous_wraps is on;
//   - keeps each for a short TTL per recipient (mailbox) and appends it to
//     the audit log.

const (
	kindBusMessage   = 25910
	kindEphemeralGW  = 21059
	kindMembershipLi = 13534
)

func isBusKind(k int) bool {
	return k == kindBusMessage || k == nostr.KindGiftWrap || k == kindEphemeralGW
}

func isWrapKind(k int) bool { return k == nostr.KindGiftWrap || k == kindEphemeralGW }

// recipientOf returns the first p tag value.
func recipientOf(ev *nostr.Event) string {
	if t := ev.Tags.GetFirst([]string{"p", ""}); t != nil {
		return (*t)[1]
	}
	return ""
}

// busVisibility narrows delivery of bus events to their parties.
func busVisibility(v policies.Viewer, ev *nostr.Event) bool {
	switch {
	case ev.Kind == kindBusMessage:
		return v.PubKey != "" && (v.PubKey == ev.PubKey || v.PubKey == recipientOf(ev))
	case isWrapKind(ev.Kind):
		if v.Filter == nil {
			return true // khatru's broadcast hook: the filter matched already
		}
		return slices.Contains(v.Filter.Tags["p"], recipientOf(ev))
	default:
		return true
	}
}

// busWrites decides who may publish bus events. Plaintext messages are
// covered by the general author-must-be-member rule; gift wraps are exempt
// from it (their author is random) and checked here instead.
func busWrites(m policies.Membership, anonymousWraps bool) func(context.Context, *nostr.Event) (bool, string) {
	return func(ctx context.Context, ev *nostr.Event) (bool, string) {
		if !isWrapKind(ev.Kind) || m.Open() {
			return false, ""
		}
		authed := policies.Authed(ctx)
		switch {
		case authed != "" && m.IsMember(authed):
			return false, ""
		case anonymousWraps && m.IsMember(recipientOf(ev)):
			return false, ""
		case authed == "":
			return true, "auth-required: gift wraps from unauthenticated clients must be addressed to a workspace member"
		default:
			return true, "restricted: only workspace members may send gift wraps here"
		}
	}
}

// ingestBus runs a verified bus event through the rejection hooks, then
// mailbox, audit and live delivery. It bypasses the store pipeline.
func (s *Server) ingestBus(ctx context.Context, ev *nostr.Event) (bool, string) {
	if reason := s.rejectEvent(ctx, ev); reason != "" {
		return false, reason
	}
	if !s.busSeen.add(ev.ID) {
		return true, "duplicate: already relayed"
	}
	s.mailbox.add(recipientOf(ev), ev)
	s.audit.append(ev)
	s.broadcast(ev)
	return true, ""
}

// rejectEvent runs the RejectEvent hooks and returns the first refusal.
func (s *Server) rejectEvent(ctx context.Context, ev *nostr.Event) string {
	for _, reject := range s.kr.RejectEvent {
		if no, msg := reject(ctx, ev); no {
			if msg == "" {
				return "blocked: no reason given"
			}
			return nostr.NormalizeOKMessage(msg, "blocked")
		}
	}
	return ""
}

// exemptFromAuthorCheck lets gift wraps past RestrictWrites: their author
// is a throwaway key, so membership is decided by busWrites instead.
func exemptFromAuthorCheck(ev *nostr.Event) bool { return isWrapKind(ev.Kind) }
