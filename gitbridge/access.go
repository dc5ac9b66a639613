package gitbridge

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Access is what a pubkey may do with a repository. Levels are ordered, so
// a check is a comparison: a service needs ReadAccess or WriteAccess.
type Access int

// Access levels, weakest first.
const (
	NoAccess Access = iota
	ReadAccess
	WriteAccess
)

// String names the level for logs.
func (a Access) String() string {
	switch a {
	case ReadAccess:
		return "read"
	case WriteAccess:
		return "write"
	}
	return "none"
}

// PublicTag is the NIP-34 `t` label that makes a repository readable by
// anyone, in the same way NIP-34 uses ["t", "personal-fork"] as a flag.
const PublicTag = "public"

// RepoAnnouncement is what the bridge takes from an owner's kind-30617
// repository announcement.
type RepoAnnouncement struct {
	// Maintainers (hex) may push, besides the owner.
	Maintainers []string
	// Public makes the repository readable by anyone, unauthenticated too.
	Public bool
	// Channel is the channel the repository is bound to (its `h` tag), or "".
	Channel string
}

// ParseAnnouncement reads a kind-30617 event of ownerHex with d = repo:
// "maintainers" tags (npub or hex values; malformed ones are skipped),
// ["t", "public"], and the first "h" tag. It fails if the event is of another
// kind, author or repository. It does not verify the signature: events come
// from the relay's store, which verified them on the way in.
func ParseAnnouncement(ev *nostr.Event, ownerHex, repo string) (*RepoAnnouncement, error) {
	if ev == nil {
		return nil, errors.New("gitbridge: nil announcement")
	}
	if ev.Kind != nostr.KindRepositoryAnnouncement || ev.PubKey != ownerHex || ev.Tags.GetD() != repo {
		return nil, fmt.Errorf("gitbridge: event %s is not the announcement of %s/%s", ev.ID, ownerHex, repo)
	}
	a := &RepoAnnouncement{}
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		switch t[0] {
		case "maintainers":
			a.Maintainers = appendKeys(a.Maintainers, t[1:])
		case "t":
			a.Public = a.Public || t[1] == PublicTag
		case "h":
			if a.Channel == "" {
				a.Channel = t[1]
			}
		}
	}
	return a, nil
}

func appendKeys(dst, vals []string) []string {
	for _, v := range vals {
		if pk, err := signer.ParsePubKey(v); err == nil && !slices.Contains(dst, pk) {
			dst = append(dst, pk)
		}
	}
	return dst
}

// accessFor decides pk's access to owner's repository. pk is "" for an
// anonymous request. Pushing needs membership even for the owner, so a key
// that left the workspace (or was banned) loses push rights with it.
func accessFor(pk, owner string, ann *RepoAnnouncement, isMember func(string) bool) Access {
	member := pk != "" && isMember(pk)
	switch {
	case member && (pk == owner || (ann != nil && slices.Contains(ann.Maintainers, pk))):
		return WriteAccess
	case member || (ann != nil && ann.Public):
		return ReadAccess
	}
	return NoAccess
}

// announcement looks the repository's announcement up. A failing lookup is
// logged and treated as no announcement: the bridge then grants only what
// it can decide without one (the owner and members), never more.
func (b *Bridge) announcement(ctx context.Context, rt route) *RepoAnnouncement {
	if b.opts.Announcement == nil {
		return nil
	}
	a, err := b.opts.Announcement(ctx, rt.owner, rt.name)
	if err != nil {
		b.log.Warn("git: announcement lookup failed", "owner", rt.owner, "repo", rt.name, "err", err)
		return nil
	}
	return a
}
