package groups

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestPermissions runs each action against a fresh group with an owner, an
// admin, a member, an outsider (in the workspace, not in the group) and a
// stranger (outside the workspace). want is "" for acceptance or the prefix
// of the refusal.
func TestPermissions(t *testing.T) {
	cases := []struct {
		name string
		who  string
		kind int
		tags func(e *env) []nostr.Tag
		want string
	}{
		{"member edits metadata", "member", kindEditMetadata, tg(nostr.Tag{"name", "x"}), "restricted:"},
		{"outsider edits metadata", "outsider", kindEditMetadata, tg(nostr.Tag{"name", "x"}), "restricted:"},
		{"admin edits metadata", "admin", kindEditMetadata, tg(nostr.Tag{"name", "x"}), ""},
		{"owner makes private", "owner", kindEditMetadata, tg(nostr.Tag{"private"}), ""},
		{"contradictory flags", "owner", kindEditMetadata, tg(nostr.Tag{"private"}, nostr.Tag{"public"}), "invalid:"},
		{"admin puts user", "admin", kindPutUser, tgP("outsider"), ""},
		{"member puts user", "member", kindPutUser, tgP("outsider"), "restricted:"},
		{"admin grants admin", "admin", kindPutUser, tgP("outsider", RoleAdmin), "restricted:"},
		{"admin grants owner", "admin", kindPutUser, tgP("member", RoleOwner), "restricted:"},
		{"owner grants admin", "owner", kindPutUser, tgP("member", RoleAdmin), ""},
		{"owner grants owner", "owner", kindPutUser, tgP("admin", RoleOwner), ""},
		{"admin demotes owner", "admin", kindPutUser, tgP("owner", RoleMember), "restricted:"},
		{"admin demotes self", "admin", kindPutUser, tgP("admin", RoleMember), "restricted:"},
		{"last owner demotes self", "owner", kindPutUser, tgP("owner", RoleAdmin), "restricted:"},
		{"unknown role", "owner", kindPutUser, tgP("member", "ceo"), "invalid:"},
		{"stranger put", "admin", kindPutUser, tgP("stranger"), "restricted:"},
		{"two p tags", "admin", kindPutUser, func(e *env) []nostr.Tag { return []nostr.Tag{h("g"), p(e.pk("outsider")), p(e.pk("member"))} }, "invalid:"},
		{"admin removes member", "admin", kindRemoveUser, tgP("member"), ""},
		{"admin removes owner", "admin", kindRemoveUser, tgP("owner"), "restricted:"},
		{"member removes member", "member", kindRemoveUser, tgP("admin"), "restricted:"},
		{"member removes self", "member", kindRemoveUser, tgP("member"), ""},
		{"owner removes admin", "owner", kindRemoveUser, tgP("admin"), ""},
		{"last owner removes self", "owner", kindRemoveUser, tgP("owner"), "restricted:"},
		{"remove non-member", "owner", kindRemoveUser, tgP("outsider"), "invalid:"},
		{"admin deletes group", "admin", kindDeleteGroup, tg(), "restricted:"},
		{"member deletes group", "member", kindDeleteGroup, tg(), "restricted:"},
		{"owner deletes group", "owner", kindDeleteGroup, tg(), ""},
		{"member creates invite", "member", kindCreateInvite, tg(nostr.Tag{"code", "c"}), "restricted:"},
		{"admin creates invite", "admin", kindCreateInvite, tg(nostr.Tag{"code", "c"}), ""},
		{"invite without code", "admin", kindCreateInvite, tg(), "invalid:"},
		{"create existing group", "outsider", kindCreateGroup, tg(), "duplicate:"},
		{"stranger creates group", "stranger", kindCreateGroup, hOnly("new"), "restricted:"},
		{"outsider creates group", "outsider", kindCreateGroup, hOnly("new"), ""},
		{"bad group id", "outsider", kindCreateGroup, hOnly("a b"), "invalid:"},
		{"member posts", "member", 9, tg(), ""},
		{"outsider posts", "outsider", 9, tg(), "restricted:"},
		{"post to unknown group", "member", 9, hOnly("nope"), "invalid:"},
		{"two h tags", "member", 9, func(*env) []nostr.Tag { return []nostr.Tag{h("g"), h("g2")} }, "invalid:"},
		{"moderation without h", "owner", kindEditMetadata, none, "invalid:"},
		{"unsupported moderation kind", "owner", 9003, tg(), "invalid:"},
		{"user-signed 39000", "owner", kindMetadata, func(*env) []nostr.Tag { return []nostr.Tag{{"d", "g"}} }, "restricted:"},
		{"member already joined", "member", kindJoinRequest, tg(), "duplicate:"},
		{"stranger joins", "stranger", kindJoinRequest, tg(), "restricted:"},
		{"outsider leaves", "outsider", kindLeaveRequest, tg(), "invalid:"},
		{"last owner leaves", "owner", kindLeaveRequest, tg(), "restricted:"},
		{"admin leaves", "admin", kindLeaveRequest, tg(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := setup(t)
			e.out[e.name(e.pk("stranger"))] = true
			e.pk("outsider")
			if c.want == "" {
				e.do(c.who, c.kind, c.tags(e)...)
			} else {
				e.refused(c.want, c.who, c.kind, c.tags(e)...)
			}
		})
	}
}

// tg returns the h tag of group "g" followed by extra tags.
func tg(extra ...nostr.Tag) func(*env) []nostr.Tag {
	return func(*env) []nostr.Tag { return append([]nostr.Tag{h("g")}, extra...) }
}

// tgP targets a named user with optional roles.
func tgP(who string, roles ...string) func(*env) []nostr.Tag {
	return func(e *env) []nostr.Tag { return []nostr.Tag{h("g"), p(e.pk(who), roles...)} }
}

func hOnly(gid string) func(*env) []nostr.Tag {
	return func(*env) []nostr.Tag { return []nostr.Tag{h(gid)} }
}

func none(*env) []nostr.Tag { return nil }

// TestLastOwnerProtected: with two owners either may go; the survivor may not.
func TestLastOwnerProtected(t *testing.T) {
	e := setup(t)
	e.do("owner", kindPutUser, h("g"), p(e.pk("admin"), RoleOwner))
	e.do("admin", kindRemoveUser, h("g"), p(e.pk("owner")))
	e.refused("restricted:", "admin", kindRemoveUser, h("g"), p(e.pk("admin")))
	e.refused("restricted:", "admin", kindLeaveRequest, h("g"))
	e.refused("restricted:", "admin", kindPutUser, h("g"), p(e.pk("admin"), RoleMember))
	if got := e.s.Role(e.pk("admin"), "g"); got != RoleOwner {
		t.Fatalf("role = %q, want owner", got)
	}
}

// TestPutUserWithoutRoleKeepsRole: re-putting an admin with no role must not
// demote them, which is what makes the relay's join echo safe to replay.
func TestPutUserWithoutRoleKeepsRole(t *testing.T) {
	e := setup(t)
	e.do("admin", kindPutUser, h("g"), p(e.pk("admin")))
	if got := e.s.Role(e.pk("admin"), "g"); got != RoleAdmin {
		t.Fatalf("role = %q, want admin", got)
	}
}

// TestRankRules: with two owners and two admins, so that last-owner
// protection cannot mask them, admins may not act on their peers or
// superiors, and owners may act on anyone.
func TestRankRules(t *testing.T) {
	cases := []struct {
		who, kind, target, role string
		want                    string
	}{
		{"admin", "remove", "owner", "", "restricted:"},
		{"admin", "remove", "admin2", "", "restricted:"},
		{"admin", "put", "admin2", RoleMember, "restricted:"},
		{"admin", "put", "owner", RoleAdmin, "restricted:"},
		{"admin", "remove", "member", "", ""},
		{"owner", "remove", "owner2", "", ""},
		{"owner", "put", "owner2", RoleMember, ""},
		{"owner", "put", "admin2", RoleMember, ""},
		{"owner", "remove", "admin2", "", ""},
	}
	for _, c := range cases {
		t.Run(c.who+" "+c.kind+" "+c.target, func(t *testing.T) {
			e := setup(t)
			e.do("owner", kindPutUser, h("g"), p(e.pk("owner2"), RoleOwner))
			e.do("owner", kindPutUser, h("g"), p(e.pk("admin2"), RoleAdmin))
			kind, tags := kindRemoveUser, []nostr.Tag{h("g"), p(e.pk(c.target))}
			if c.kind == "put" {
				kind, tags = kindPutUser, []nostr.Tag{h("g"), p(e.pk(c.target), c.role)}
			}
			if c.want == "" {
				e.do(c.who, kind, tags...)
			} else {
				e.refused(c.want, c.who, kind, tags...)
			}
		})
	}
}
