package relay_test

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// A closed channel: a join request without an invite leaves the requester
// pending, not a member; an admin's invite code admits whoever brings it,
// once; an admin's 9000 approves a pending request. 39002 follows each step.
func TestClosedChannelJoin(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := newChanPeer(t, r, r.Member)
	admin := newChanPeer(t, r, r.Admin)
	member := newChanPeer(t, r, chanWorkspaceKey(t, r))
	asker := newChanPeer(t, r, chanWorkspaceKey(t, r))
	invited := newChanPeer(t, r, chanWorkspaceKey(t, r))
	late := newChanPeer(t, r, chanWorkspaceKey(t, r))
	h := nostr.Tag{"h", "vault"}

	owner.send(9007, "", h, nostr.Tag{"closed"})
	owner.send(9000, "", h, nostr.Tag{"p", admin.pk(), "admin"})
	owner.send(9000, "", h, nostr.Tag{"p", member.pk()})
	chanWantMembers(t, r, asker, "vault", "created", owner.pk(), admin.pk(), member.pk())

	// A request without a code is recorded, not granted.
	req := testutil.Signed(t, asker.key, 9021, "let me in", h)
	if ok, reason := asker.publish(req); !ok || !strings.HasPrefix(reason, "pending:") {
		t.Fatalf("join request to a closed channel: OK %v %q, want accepted as pending", ok, reason)
	}
	chanWantMembers(t, r, asker, "vault", "after a request without code", owner.pk(), admin.pk(), member.pk())
	asker.refused("restricted:", 9, "am I in?", h)
	asker.refused("duplicate:", 9021, "please", h)
	asker.refused("restricted:", 9021, "", h, nostr.Tag{"code", "guessed"})

	// Invite codes are for admins to make, and admit once.
	member.refused("restricted:", 9009, "", h, nostr.Tag{"code", "member-made"})
	admin.send(9009, "", h, nostr.Tag{"code", "open-sesame"})
	invited.send(9021, "", h, nostr.Tag{"code", "open-sesame"})
	chanWantMembers(t, r, asker, "vault", "after the invited join", owner.pk(), admin.pk(), member.pk(), invited.pk())
	invited.send(9, "thanks for the invite", h)
	late.refused("restricted:", 9021, "", h, nostr.Tag{"code", "open-sesame"})
	late.refused("restricted:", 9, "me too?", h)
	// The relay records the admission as its own 9000.
	echo := chanKinds(owner.fetch(nostr.Filter{Kinds: []int{9000}, Authors: []string{r.Server.PublicKey()}, Tags: nostr.TagMap{"h": {"vault"}}}), 9000)
	if len(echo) != 1 || echo[0].Tags.FindWithValue("p", invited.pk()) == nil {
		t.Fatalf("relay echo of the invited join: %v", echo)
	}

	// A plain member cannot approve the pending request; an admin can.
	member.refused("restricted:", 9000, "", h, nostr.Tag{"p", asker.pk()})
	chanWantMembers(t, r, asker, "vault", "after a member's approval", owner.pk(), admin.pk(), member.pk(), invited.pk())
	admin.send(9000, "", h, nostr.Tag{"p", asker.pk()})
	chanWantMembers(t, r, asker, "vault", "after the admin's approval", owner.pk(), admin.pk(), member.pk(), invited.pk(), asker.pk())
	asker.send(9, "finally in", h)
	late.refused("restricted:", 9, "still out", h)

	// An admin can also reject a pending request (9001), after which a new
	// request is pending again rather than a duplicate.
	late.send(9021, "", h)
	admin.send(9001, "", h, nostr.Tag{"p", late.pk()})
	late.send(9021, "once more", h)
	chanWantMembers(t, r, late, "vault", "after reject and re-request", owner.pk(), admin.pk(), member.pk(), invited.pk(), asker.pk())

	r.Restart(t)
	p := newChanPeer(t, r, r.Member)
	chanWantMembers(t, r, p, "vault", "after restart", owner.pk(), admin.pk(), member.pk(), invited.pk(), asker.pk())
}

// Invites (9009) and join requests (9021) are shown only to the channel's
// admins and owners and to their author: not to other members nor to the
// rest of the workspace, stored or live, whatever the filter.
func TestInvitesAndJoinRequestsHidden(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := newChanPeer(t, r, r.Member)
	admin := newChanPeer(t, r, r.Admin)
	member := newChanPeer(t, r, chanWorkspaceKey(t, r))
	outsider := newChanPeer(t, r, chanWorkspaceKey(t, r))
	asker := newChanPeer(t, r, chanWorkspaceKey(t, r))
	invited := newChanPeer(t, r, chanWorkspaceKey(t, r))
	h := nostr.Tag{"h", "hq"}

	owner.send(9007, "", h, nostr.Tag{"closed"})
	owner.send(9000, "", h, nostr.Tag{"p", admin.pk(), "admin"})
	owner.send(9000, "", h, nostr.Tag{"p", member.pk()})

	filters := []nostr.Filter{
		{Kinds: []int{9009, 9021}},
		{Tags: nostr.TagMap{"h": {"hq"}}},
		{},
		{Authors: []string{admin.pk(), asker.pk(), invited.pk()}},
	}
	all := []*chanPeer{owner, admin, member, outsider, asker, invited}
	live := map[*chanPeer]*chanLive{}
	for _, p := range all {
		live[p] = newChanLive(t, r, p.key, filters...)
	}

	invite := admin.send(9009, "", h, nostr.Tag{"code", "welcome-42"})
	pending := asker.send(9021, "", h)
	join := invited.send(9021, "", h, nostr.Tag{"code", "welcome-42"})
	post := member.send(9, "hello everyone", h)

	want := map[*chanPeer][]string{
		owner:    {invite.ID, pending.ID, join.ID},
		admin:    {invite.ID, pending.ID, join.ID},
		member:   {},
		outsider: {},
		asker:    {pending.ID},
		invited:  {join.ID}, // a member now, but not an admin
	}
	secret := func(ev nostr.Event) bool { return ev.Kind == 9009 || ev.Kind == 9021 }
	for _, p := range all {
		name := map[*chanPeer]string{owner: "owner", admin: "admin", member: "member", outsider: "outsider", asker: "asker", invited: "invited"}[p]
		// A REQ answers each of its filters in turn, so an event matching
		// several comes several times: count each once.
		var stored []nostr.Event
		dup := map[string]bool{}
		for _, ev := range p.fetch(filters...) {
			if secret(ev) && !dup[ev.ID] {
				dup[ev.ID] = true
				stored = append(stored, ev)
			}
		}
		chanHasIDs(t, name+", stored", stored, want[p]...)
		chanHasIDs(t, name+", by id", p.fetch(nostr.Filter{IDs: []string{invite.ID, pending.ID, join.ID}}), want[p]...)
		var got []nostr.Event
		sawPost := false
		for _, ev := range live[p].received() {
			if secret(ev) {
				got = append(got, ev)
			}
			sawPost = sawPost || ev.ID == post.ID
		}
		chanHasIDs(t, name+", live", got, want[p]...)
		// The channel is public: everyone's live subscription is working.
		if !sawPost {
			t.Fatalf("%s: live subscription did not receive the public post", name)
		}
	}
}
