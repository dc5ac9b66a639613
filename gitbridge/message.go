package gitbridge

import (
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// MaxMessageRefs caps the ref lines of a push message; the rest of a large
// push is summarised as "… and N more refs" (the state event has them all).
const MaxMessageRefs = 50

// ChannelMessage returns the unsigned kind-9 message that announces p in
// the channel its repository is bound to, or nil when p.Channel is "". The
// caller signs it (with the relay key) and stores it. The content reads
//
//	<pusher npub> pushed to <owner npub>/<repo>: <clone URL>
//	refs/heads/main <old id> -> <new id>
//	refs/heads/topic created <new id>
//	refs/tags/old deleted (was <old id>)
//
// with full object ids. Tags: ["h", channel]; ["a", "30617:<owner>:<repo>"]
// (the repository, as trigger reports name it); ["a",
// "30618:<relay>:<owner>/<repo>"] and ["e", <state id>, "", "mention"] for
// the state event when one was published. There is no "p" tag: a push
// message is not a mention of the pusher or the owner, so mention-driven
// tools do not fire on their own pushes.
func (p Push) ChannelMessage() *nostr.Event {
	if p.Channel == "" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s pushed to %s/%s: %s", signer.EncodeNPub(p.Pusher), signer.EncodeNPub(p.Owner), p.Repo, p.URL)
	for i, u := range p.Updates {
		if i == MaxMessageRefs {
			fmt.Fprintf(&b, "\n… and %d more refs", len(p.Updates)-i)
			break
		}
		switch {
		case u.Creates():
			fmt.Fprintf(&b, "\n%s created %s", u.Ref, u.New)
		case u.Deletes():
			fmt.Fprintf(&b, "\n%s deleted (was %s)", u.Ref, u.Old)
		default:
			fmt.Fprintf(&b, "\n%s %s -> %s", u.Ref, u.Old, u.New)
		}
	}
	tags := nostr.Tags{{"h", p.Channel}, {"a", "30617:" + p.Owner + ":" + p.Repo}}
	if p.State != nil {
		tags = append(tags, nostr.Tag{"a", fmt.Sprintf("%d:%s:%s", nostr.KindRepositoryState, p.State.PubKey, p.State.Tags.GetD())},
			nostr.Tag{"e", p.State.ID, "", "mention"})
	}
	return &nostr.Event{Kind: 9, CreatedAt: nostr.Now(), Content: b.String(), Tags: tags}
}
