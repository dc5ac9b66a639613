package groups

import (
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestCanRead: public groups are readable by all, private ones by members
// only, and a removal revokes reading at once.
func TestCanRead(t *testing.T) {
	e := setup(t)
	e.do("bob", kindCreateGroup, h("secret"), nostr.Tag{"private"})
	e.do("bob", kindPutUser, h("secret"), p(e.pk("member")))
	cases := []struct {
		who, group string
		want       bool
	}{
		{"outsider", "g", true},
		{"", "g", true},
		{"outsider", "secret", false},
		{"", "secret", false},
		{"member", "secret", true},
		{"bob", "secret", true},
		{"member", "nope", false},
	}
	for _, c := range cases {
		pk := ""
		if c.who != "" {
			pk = e.pk(c.who)
		}
		if got := e.s.CanRead(pk, c.group); got != c.want {
			t.Errorf("CanRead(%s, %s) = %v, want %v", c.who, c.group, got, c.want)
		}
	}
	e.do("bob", kindRemoveUser, h("secret"), p(e.pk("member")))
	if e.s.CanRead(e.pk("member"), "secret") || e.s.CanWrite(e.pk("member"), "secret") {
		t.Fatal("removed member can still read or write")
	}
}

// TestJoinOpenGroup: an open group admits at once, echoing a relay 9000 and
// a new 39002.
func TestJoinOpenGroup(t *testing.T) {
	e := setup(t)
	res := e.do("carol", kindJoinRequest, h("g"))
	if e.s.Role(e.pk("carol"), "g") != RoleMember || !e.s.CanWrite(e.pk("carol"), "g") {
		t.Fatal("carol not admitted")
	}
	if len(res.Moderation) != 1 {
		t.Fatalf("moderation = %v", res.Moderation)
	}
	echo := res.Moderation[0]
	if echo.Kind != kindPutUser || echo.PubKey != e.relay.PublicKey() || echo.Tags.FindWithValue("p", e.pk("carol")) == nil {
		t.Fatalf("echo = %v", echo)
	}
	if ok, _ := echo.CheckSignature(); !ok {
		t.Fatal("echo not signed")
	}
	if got := kindsOf(res.Metadata); !slices.Equal(got, []int{kindMembers}) {
		t.Fatalf("metadata kinds = %v", got)
	}
	if reason := e.s.Check(echo); !strings.HasPrefix(reason, "duplicate:") {
		t.Fatalf("re-submitted echo: %q", reason)
	}
}

// TestJoinClosedGroup: a closed group records the request as pending until
// an admin puts the user; the requester cannot post meanwhile.
func TestJoinClosedGroup(t *testing.T) {
	e := setup(t, nostr.Tag{"closed"})
	res := e.do("carol", kindJoinRequest, h("g"))
	if !strings.HasPrefix(res.Note, "pending:") || len(res.Metadata) != 0 || len(res.Moderation) != 0 {
		t.Fatalf("result = %+v", res)
	}
	if e.s.CanWrite(e.pk("carol"), "g") {
		t.Fatal("pending requester can write")
	}
	if gi, _ := e.s.Group("g"); !slices.Equal(gi.Pending, []string{e.pk("carol")}) {
		t.Fatalf("pending = %v", gi.Pending)
	}
	e.refused("duplicate:", "carol", kindJoinRequest, h("g"))
	e.refused("restricted:", "carol", 9, h("g"))
	e.do("admin", kindPutUser, h("g"), p(e.pk("carol")))
	if gi, _ := e.s.Group("g"); len(gi.Pending) != 0 || e.s.Role(e.pk("carol"), "g") != RoleMember {
		t.Fatalf("after approval: %+v", gi)
	}
}

// TestDenyAndWithdrawJoin: an admin's 9001 rejects a pending request and the
// requester's 9022 withdraws it.
func TestDenyAndWithdrawJoin(t *testing.T) {
	e := setup(t, nostr.Tag{"closed"})
	e.do("carol", kindJoinRequest, h("g"))
	e.refused("restricted:", "member", kindRemoveUser, h("g"), p(e.pk("carol")))
	e.do("admin", kindRemoveUser, h("g"), p(e.pk("carol")))
	e.do("carol", kindJoinRequest, h("g"))
	e.do("carol", kindLeaveRequest, h("g"))
	if gi, _ := e.s.Group("g"); len(gi.Pending) != 0 {
		t.Fatalf("pending = %v", gi.Pending)
	}
}

// TestInviteCode: a code admits once to a closed group.
func TestInviteCode(t *testing.T) {
	e := setup(t, nostr.Tag{"closed"})
	e.do("admin", kindCreateInvite, h("g"), nostr.Tag{"code", "sesame"})
	e.refused("duplicate:", "owner", kindCreateInvite, h("g"), nostr.Tag{"code", "sesame"})
	e.refused("restricted:", "carol", kindJoinRequest, h("g"), nostr.Tag{"code", "wrong"})
	res := e.do("carol", kindJoinRequest, h("g"), nostr.Tag{"code", "sesame"})
	if e.s.Role(e.pk("carol"), "g") != RoleMember || len(res.Moderation) != 1 {
		t.Fatal("code did not admit")
	}
	e.refused("restricted:", "dave", kindJoinRequest, h("g"), nostr.Tag{"code", "sesame"})
}

// TestLeave: a member leaves, the relay echoes a 9001, and 39002 shrinks.
func TestLeave(t *testing.T) {
	e := setup(t)
	res := e.do("member", kindLeaveRequest, h("g"))
	if e.s.Role(e.pk("member"), "g") != "" {
		t.Fatal("still a member")
	}
	if len(res.Moderation) != 1 || res.Moderation[0].Kind != kindRemoveUser {
		t.Fatalf("moderation = %v", res.Moderation)
	}
	if got := kindsOf(res.Metadata); !slices.Equal(got, []int{kindMembers}) {
		t.Fatalf("metadata kinds = %v", got)
	}
	if slices.Contains(e.s.MembersOf("g"), e.pk("member")) {
		t.Fatal("MembersOf still lists the leaver")
	}
	e.refused("invalid:", "member", kindLeaveRequest, h("g"))
}

// TestThreadTags: NIP-10 threads and p mentions must be well formed.
func TestThreadTags(t *testing.T) {
	e := setup(t)
	e.do("member", 9, h("g"))
	id := strings.Repeat("a", 64)
	e.do("admin", 9, h("g"), nostr.Tag{"e", id, "", "root"}, nostr.Tag{"e", id, "", "reply"}, p(e.pk("member")))
	e.do("admin", 9, h("g"), nostr.Tag{"e", id, "", "root"})
	e.refused("invalid:", "admin", 9, h("g"), nostr.Tag{"e", id, "", "reply"})
	e.refused("invalid:", "admin", 9, h("g"), nostr.Tag{"e", id, "", "parent"})
	e.refused("invalid:", "admin", 9, h("g"), nostr.Tag{"e", id, "", "root"}, nostr.Tag{"e", id, "", "root"})
	e.refused("invalid:", "admin", 9, h("g"), nostr.Tag{"e", "nothex"})
	e.refused("invalid:", "admin", 9, h("g"), nostr.Tag{"p", "NOTHEX"})
}

// TestNonGroupEventsIgnored: events without an h tag are not this package's
// business.
func TestNonGroupEventsIgnored(t *testing.T) {
	e := setup(t)
	res := e.do("outsider", 1)
	if res.Group != "" || e.s.GroupOf(e.ev("x", 1)) != "" {
		t.Fatalf("result = %+v", res)
	}
}
