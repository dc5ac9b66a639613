package groups

import (
	"context"
	"reflect"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestRemoveEverywhere: a workspace ban drops the user from every group,
// withdraws pending requests, hands ownership on, and deletes a group left
// empty; each step is a relay-signed 9001 that a rebuild replays.
func TestRemoveEverywhere(t *testing.T) {
	e := setup(t)                                                    // g: owner, admin, member
	e.do("member", kindCreateGroup, h("mine"))                       // member is sole owner
	e.do("member", kindPutUser, h("mine"), p(e.pk("zoe")))           // zoe inherits mine
	e.do("member", kindCreateGroup, h("alone"))                      // nobody inherits alone
	e.do("owner", kindCreateGroup, h("club"), nostr.Tag{"closed"})   //
	e.do("member", kindJoinRequest, h("club"))                       // pending
	e.do("owner", kindPutUser, h("g"), p(e.pk("member"), RoleAdmin)) // an admin too
	res, err := e.s.Remove(context.Background(), e.pk("member"))
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, r := range res {
		groups = append(groups, r.Group)
		if len(r.Moderation) != 1 || r.Moderation[0].Kind != kindRemoveUser || r.Moderation[0].PubKey != e.relay.PublicKey() {
			t.Fatalf("group %s: moderation %v", r.Group, r.Moderation)
		}
		e.keep(r)
	}
	if want := []string{"alone", "club", "g", "mine"}; !reflect.DeepEqual(groups, want) {
		t.Fatalf("results for %v, want %v", groups, want)
	}
	for _, gi := range e.s.Groups() {
		for _, m := range gi.Members {
			if m.PubKey == e.pk("member") {
				t.Fatalf("still in %s", gi.ID)
			}
		}
		if len(gi.Pending) != 0 {
			t.Fatalf("still pending in %s", gi.ID)
		}
	}
	if e.s.Role(e.pk("zoe"), "mine") != RoleOwner {
		t.Fatal("ownership of mine not handed to zoe")
	}
	if _, ok := e.s.Group("alone"); ok {
		t.Fatal("empty group survived")
	}
	fresh := e.newState()
	if err := fresh.Rebuild(context.Background(), e.storedEvents()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh.Groups(), e.s.Groups()) {
		t.Fatalf("rebuild after ban\n got %+v\nwant %+v", fresh.Groups(), e.s.Groups())
	}
}

// TestSuccessionPrefersAdmins: the admin with the lowest pubkey inherits.
func TestSuccessionPrefersAdmins(t *testing.T) {
	g := newGroup("x")
	g.members = map[string]string{"o": RoleOwner, "a": RoleMember, "c": RoleAdmin, "b": RoleAdmin}
	if !g.remove("o") || g.members["b"] != RoleOwner || g.owners() != 1 {
		t.Fatalf("members = %v", g.members)
	}
	solo := newGroup("y")
	solo.put("o", RoleOwner)
	if solo.remove("o") {
		t.Fatal("removing the only member should report an empty group")
	}
}

// TestSyncPurgesDeletedGroups: stored metadata of a group the log no longer
// knows is purged by Sync.
func TestSyncPurgesDeletedGroups(t *testing.T) {
	e := setup(t)
	var meta []*nostr.Event
	for _, ev := range e.store {
		if IsMetadataKind(ev.Kind) {
			meta = append(meta, ev)
		}
	}
	fresh := e.newState()
	if err := fresh.Rebuild(context.Background(), meta); err != nil {
		t.Fatal(err)
	}
	res, err := fresh.Sync(context.Background())
	if err != nil || len(res) != 1 || len(res[0].Deletions) != 1 || res[0].Deletions[0].Group != "g" {
		t.Fatalf("Sync = %+v, %v", res, err)
	}
	if res, _ := fresh.Sync(context.Background()); len(res) != 0 {
		t.Fatalf("second Sync = %+v", res)
	}
}
