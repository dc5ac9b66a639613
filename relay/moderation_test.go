package relay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// 9005 delete-event: a channel admin removes someone else's message from
// stored queries (by id and by #h) and from search; a plain member's 9005
// of someone else's message is refused, and so is an admin's 9005 reaching
// into another channel or at the channel's moderation log; authors may
// delete their own. A deleted message cannot be re-published by anyone,
// and the deletion survives a restart.
func TestChannelDeleteEventModeration(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := newChanPeer(t, r, r.Member)
	admin := newChanPeer(t, r, r.Admin)
	poster := newChanPeer(t, r, chanWorkspaceKey(t, r))
	bystander := newChanPeer(t, r, chanWorkspaceKey(t, r))
	h := nostr.Tag{"h", "mod"}

	create := owner.send(9007, "", h)
	owner.send(9000, "", h, nostr.Tag{"p", admin.pk(), "admin"})
	owner.send(9000, "", h, nostr.Tag{"p", poster.pk(), "member"})
	owner.send(9000, "", h, nostr.Tag{"p", bystander.pk(), "member"})
	owner.send(9007, "", nostr.Tag{"h", "elsewhere"})
	elsewhere := owner.send(9, "zeppelin sightings elsewhere", nostr.Tag{"h", "elsewhere"})

	spam := poster.send(9, "the zeppelin spam everyone hates", h)
	keep := poster.send(9, "zeppelin maintenance schedule", h)
	other := bystander.send(9, "lunch at noon", h)
	everyone := []*chanPeer{owner, admin, poster, bystander}
	for _, p := range everyone {
		chanHasIDs(t, "before", p.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"mod"}}}), spam.ID, keep.ID, other.ID)
	}
	bystander.search(nostr.Filter{Kinds: []int{9}, Search: "zeppelin"}, spam.ID, keep.ID, elsewhere.ID)

	// A plain member may not delete someone else's message.
	bystander.refused("restricted:", 9005, "", h, nostr.Tag{"e", spam.ID})
	chanHasIDs(t, "after a member's 9005", bystander.fetch(nostr.Filter{IDs: []string{spam.ID}}), spam.ID)
	// An admin of mod cannot reach into another channel, nor delete the
	// moderation log.
	admin.refused("invalid:", 9005, "", h, nostr.Tag{"e", elsewhere.ID})
	admin.refused("invalid:", 9005, "", h, nostr.Tag{"e", create.ID})
	chanHasIDs(t, "other channel", owner.fetch(nostr.Filter{IDs: []string{elsewhere.ID}}), elsewhere.ID)
	chanHasIDs(t, "creation", owner.fetch(nostr.Filter{IDs: []string{create.ID}}), create.ID)

	// The channel admin (not owner) deletes the spam.
	del := admin.send(9005, "spam", h, nostr.Tag{"e", spam.ID})
	check := func(step string) {
		t.Helper()
		for _, p := range everyone {
			chanHasIDs(t, step+": by id", p.fetch(nostr.Filter{IDs: []string{spam.ID}}))
			chanHasIDs(t, step+": by #h", p.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"mod"}}}), keep.ID, other.ID)
			chanHasIDs(t, step+": by author", p.fetch(nostr.Filter{Authors: []string{poster.pk()}, Kinds: []int{9}}), keep.ID)
		}
		bystander.search(nostr.Filter{Kinds: []int{9}, Search: "zeppelin"}, keep.ID, elsewhere.ID)
		poster.search(nostr.Filter{Search: "spam", Tags: nostr.TagMap{"h": {"mod"}}})
		// The 9005 itself stays, as the record of who deleted what.
		chanHasIDs(t, step+": the 9005", bystander.fetch(nostr.Filter{Kinds: []int{9005}, Tags: nostr.TagMap{"h": {"mod"}}}), del.ID)
	}
	check("after the admin's 9005")
	// Every reader holds the signed message: re-sending it, by its author
	// or anyone else, must not undo the moderation.
	for _, p := range []*chanPeer{poster, bystander} {
		if ok, reason := p.publish(spam); ok {
			t.Fatalf("deleted message re-published (%q)", reason)
		}
	}
	check("after re-publishing")

	// The author may delete their own message, with a 9005 or with a
	// NIP-09 kind 5; neither can be re-published.
	poster.send(9005, "", h, nostr.Tag{"e", keep.ID})
	bystander.send(5, "", nostr.Tag{"e", other.ID})
	chanHasIDs(t, "after the authors' deletions", owner.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"mod"}}}))
	bystander.search(nostr.Filter{Kinds: []int{9}, Search: "zeppelin"}, elsewhere.ID)
	for _, ev := range []nostr.Event{keep, other} {
		if ok, reason := owner.publish(ev); ok {
			t.Fatalf("message deleted by its author re-published (%q)", reason)
		}
	}
	chanHasIDs(t, "after re-publishing", owner.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"mod"}}}))
	last := bystander.send(9, "still talking", h)

	r.Restart(t)
	p := newChanPeer(t, r, r.Member)
	chanHasIDs(t, "after restart", p.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"mod"}}}), last.ID)
	p.search(nostr.Filter{Kinds: []int{9}, Search: "zeppelin"}, elsewhere.ID)
	if ok, reason := p.publish(spam); ok {
		t.Fatalf("deleted message re-published after restart (%q)", reason)
	}
}

// 9008 delete-group: only an owner may delete a channel; then its messages,
// moderation log and metadata are purged from stored queries and search,
// nobody can post to it, join it or manage it, and the id may be taken
// again by a new channel that starts empty. A restart resurrects nothing.
func TestChannelDeleteGroup(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := newChanPeer(t, r, r.Member)
	admin := newChanPeer(t, r, r.Admin)
	member := newChanPeer(t, r, chanWorkspaceKey(t, r))
	h := nostr.Tag{"h", "doomed"}

	owner.send(9007, "", h, nostr.Tag{"name", "Doomed"}, nostr.Tag{"about", "short-lived"})
	owner.send(9000, "", h, nostr.Tag{"p", admin.pk(), "admin"})
	owner.send(9000, "", h, nostr.Tag{"p", member.pk()})
	m1 := owner.send(9, "xylophone lessons", h)
	m2 := member.send(9, "xylophone repair", h, nostr.Tag{"e", m1.ID, "", "root"})
	owner.send(9007, "", nostr.Tag{"h", "survivor"})
	survivor := owner.send(9, "xylophone survives", nostr.Tag{"h", "survivor"})
	member.search(nostr.Filter{Kinds: []int{9}, Search: "xylophone"}, m1.ID, m2.ID, survivor.ID)
	if len(chanMeta(t, r, member, "doomed")) != 4 {
		t.Fatal("doomed channel lacks its 39000-39003")
	}

	admin.refused("restricted:", 9008, "", h)
	member.refused("restricted:", 9008, "", h)
	chanHasIDs(t, "after refused 9008s", member.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"doomed"}}}), m1.ID, m2.ID)

	// A message made well before the deletion, to try to put back later.
	old := nostr.Event{Kind: 9, CreatedAt: nostr.Now() - 30, Content: "old xylophone", Tags: nostr.Tags{h}}
	if err := member.key.SignEvent(context.Background(), &old); err != nil {
		t.Fatal(err)
	}
	if ok, reason := member.publish(old); !ok {
		t.Fatalf("old message refused: %s", reason)
	}

	owner.send(9008, "", h)
	gone := func(step string) {
		t.Helper()
		for _, p := range []*chanPeer{owner, admin, member} {
			chanHasIDs(t, step+": #h", p.fetch(nostr.Filter{Tags: nostr.TagMap{"h": {"doomed"}}}))
			chanHasIDs(t, step+": #d", p.fetch(nostr.Filter{Tags: nostr.TagMap{"d": {"doomed"}}}))
			chanHasIDs(t, step+": ids", p.fetch(nostr.Filter{IDs: []string{m1.ID, m2.ID}}))
			for _, ev := range p.fetch(nostr.Filter{Kinds: []int{9, 9000, 9002, 9007, 9008, 39000, 39001, 39002, 39003}}) {
				if ev.Tags.FindWithValue("h", "doomed") != nil || ev.Tags.FindWithValue("d", "doomed") != nil {
					t.Fatalf("%s: deleted channel's kind %d still served", step, ev.Kind)
				}
			}
			p.search(nostr.Filter{Kinds: []int{9}, Search: "xylophone"}, survivor.ID)
		}
		// The channel is gone for writing too.
		// (Contents differ per step so that no event repeats an earlier id.)
		owner.refused("invalid:", 9, "anyone here? "+step, h)
		member.refused("invalid:", 9, "hello? "+step, h)
		member.refused("invalid:", 9021, step, h)
		admin.refused("invalid:", 9000, step, h, nostr.Tag{"p", member.pk()})
		owner.refused("invalid:", 9002, step, h, nostr.Tag{"name", "Back"})
		owner.refused("invalid:", 9008, step, h)
	}
	gone("after 9008")
	chanHasIDs(t, "survivor", member.fetch(nostr.Filter{Tags: nostr.TagMap{"h": {"survivor"}}, Kinds: []int{9}}), survivor.ID)

	r.Restart(t)
	owner = newChanPeer(t, r, r.Member)
	admin = newChanPeer(t, r, r.Admin)
	member = newChanPeer(t, r, member.key)
	gone("after restart")

	// The id is free again: a new channel under it starts from nothing,
	// and a message from before the deletion cannot be put back into it.
	member.send(9007, "", h)
	owner.refused("restricted:", 9, "I was the owner", h)
	if ok, reason := member.publish(old); ok || !strings.HasPrefix(reason, "blocked:") {
		t.Fatalf("re-publishing a message from before the 9008: OK %v %q, want blocked", ok, reason)
	}
	chanHasIDs(t, "re-created", member.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"doomed"}}}))
	chanWantMembers(t, r, member, "doomed", "re-created", member.pk())
	meta := chanMeta(t, r, member, "doomed")
	if meta[39000].Tags.Find("about") != nil || meta[39000].Tags.FindWithValue("name", "doomed") == nil {
		t.Fatalf("re-created channel inherited metadata: %v", meta[39000].Tags)
	}
	fresh := member.send(9, "xylophone again", h)
	r.Restart(t)
	member = newChanPeer(t, r, member.key)
	chanHasIDs(t, "re-created, after restart", member.fetch(nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"doomed"}}}), fresh.ID)
	chanWantMembers(t, r, member, "doomed", "re-created, after restart", member.pk())
	member.search(nostr.Filter{Kinds: []int{9}, Search: "xylophone"}, survivor.ID, fresh.ID)
}
