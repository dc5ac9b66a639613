package groups

import (
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// maxGroupID bounds group ids; they appear in every tag filter and URL.
const maxGroupID = 64

// validGroupID accepts the conventional NIP-29 id alphabet (letters, digits,
// '-' and '_'), which keeps ids safe in naddr codes, paths and logs.
func validGroupID(id string) bool {
	if id == "" || len(id) > maxGroupID {
		return false
	}
	for _, c := range id {
		ok := c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// groupTag returns the event's single group id. Two h tags are refused: the
// event would be readable under one group's rules and written under another's.
func groupTag(ev *nostr.Event) (string, string) {
	hs := named(ev.Tags, "h")
	switch {
	case len(hs) == 0:
		return "", "invalid: group events need an h tag"
	case len(hs) > 1:
		return "", "invalid: an event belongs to one group; found several h tags"
	case len(hs[0]) < 2 || !validGroupID(hs[0][1]):
		return "", "invalid: group id must be 1-64 characters of a-z A-Z 0-9 - _"
	}
	return hs[0][1], ""
}

// onePubkey returns the single p tag of a put-user or remove-user, and the
// tag itself for its role arguments. One target per event keeps every
// permission decision about one person.
func onePubkey(ev *nostr.Event) (string, nostr.Tag, string) {
	ps := named(ev.Tags, "p")
	if len(ps) != 1 || len(ps[0]) < 2 {
		return "", nil, "invalid: exactly one p tag is required"
	}
	if !nostr.IsValid32ByteHex(ps[0][1]) {
		return "", nil, "invalid: p tag must be a 64-character lowercase hex pubkey"
	}
	return ps[0][1], ps[0], ""
}

// tagRole reads the optional roles of a put-user p tag. Several roles are
// allowed by NIP-29; a member holds one here, so the highest wins.
func tagRole(p nostr.Tag) (string, string) {
	best := ""
	for _, r := range p[2:] {
		if r == "" {
			continue
		}
		if rank(r) == 0 {
			return "", fmt.Sprintf("invalid: unknown role %q (roles: owner, admin, member)", r)
		}
		if rank(r) > rank(best) {
			best = r
		}
	}
	return best, ""
}

// checkThreadTags validates NIP-10 threading (e tags with root/reply/mention
// markers) and mentions (p tags), so clients can rely on them in channels.
func checkThreadTags(tags nostr.Tags) string {
	roots, replies := 0, 0
	for _, t := range tags {
		if len(t) < 1 || (t[0] != "e" && t[0] != "p") {
			continue
		}
		if len(t) < 2 || !nostr.IsValid32ByteHex(t[1]) {
			return fmt.Sprintf("invalid: %s tag must hold a 64-character lowercase hex value", t[0])
		}
		if t[0] != "e" || len(t) < 4 {
			continue
		}
		switch t[3] {
		case "root":
			roots++
		case "reply":
			replies++
		case "", "mention":
		default:
			return fmt.Sprintf("invalid: e tag marker %q is not root, reply or mention", t[3])
		}
	}
	if roots > 1 || replies > 1 {
		return "invalid: a message has at most one root and one reply e tag"
	}
	if replies == 1 && roots == 0 {
		return "invalid: a reply e tag needs a root e tag"
	}
	return ""
}

// tagValue returns the first value of the named tag and whether it exists.
func tagValue(tags nostr.Tags, name string) (string, bool) {
	t := tags.Find(name)
	if t == nil {
		return "", false
	}
	return t[1], true
}

// hasFlag reports whether a valueless marker tag such as ["private"] is set.
func hasFlag(tags nostr.Tags, name string) bool { return len(named(tags, name)) > 0 }

// named returns every tag called name, including malformed valueless ones so
// that callers can refuse them.
func named(tags nostr.Tags, name string) nostr.Tags {
	var out nostr.Tags
	for _, t := range tags {
		if len(t) >= 1 && t[0] == name {
			out = append(out, t)
		}
	}
	return out
}
