package groups

import (
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestCreateEmitsSignedMetadata: a 9007 yields 39000-39003, in that order,
// signed by the relay, with exactly the expected tags.
func TestCreateEmitsSignedMetadata(t *testing.T) {
	e := newEnv(t)
	res := e.do("alice", kindCreateGroup, h("pizza"), nostr.Tag{"name", "Pizza"},
		nostr.Tag{"about", "cheese"}, nostr.Tag{"private"})
	if got := kindsOf(res.Metadata); !slices.Equal(got, metaKinds) {
		t.Fatalf("kinds = %v, want %v", got, metaKinds)
	}
	alice := e.pk("alice")
	want := []nostr.Tags{
		{{"d", "pizza"}, {"name", "Pizza"}, {"about", "cheese"}, {"private"}, {"open"}, {"restricted"}},
		{{"d", "pizza"}, {"p", alice, RoleOwner}},
		{{"d", "pizza"}, {"p", alice}},
		{{"d", "pizza"}, {"role", RoleOwner, roleDescriptions[0][1]},
			{"role", RoleAdmin, roleDescriptions[1][1]}, {"role", RoleMember, roleDescriptions[2][1]}},
	}
	for i, ev := range res.Metadata {
		if ev.PubKey != e.relay.PublicKey() {
			t.Errorf("kind %d signed by %s, want relay", ev.Kind, ev.PubKey)
		}
		if ok, err := ev.CheckSignature(); !ok || err != nil {
			t.Errorf("kind %d: bad signature (%v)", ev.Kind, err)
		}
		if canonical(ev.Tags) != canonical(want[i]) {
			t.Errorf("kind %d tags = %v, want %v", ev.Kind, ev.Tags, want[i])
		}
	}
	if len(res.Moderation) != 0 || len(res.Deletions) != 0 {
		t.Fatalf("unexpected side effects: %+v", res)
	}
}

// TestOnlyChangedMetadataEmitted: each change re-emits just the kinds whose
// content moved, and a no-op change emits nothing.
func TestOnlyChangedMetadataEmitted(t *testing.T) {
	e := setup(t)
	steps := []struct {
		who  string
		kind int
		tags []nostr.Tag
		want []int
	}{
		{"owner", kindEditMetadata, []nostr.Tag{h("g"), {"name", "G"}}, []int{kindMetadata}},
		{"owner", kindEditMetadata, []nostr.Tag{h("g"), {"name", "G"}}, nil},
		{"admin", kindPutUser, []nostr.Tag{h("g"), p(e.pk("new"))}, []int{kindMembers}},
		{"owner", kindPutUser, []nostr.Tag{h("g"), p(e.pk("new"), RoleAdmin)}, []int{kindAdmins}},
		{"owner", kindRemoveUser, []nostr.Tag{h("g"), p(e.pk("new"))}, []int{kindAdmins, kindMembers}},
		{"admin", kindCreateInvite, []nostr.Tag{h("g"), {"code", "x"}}, nil},
	}
	for _, st := range steps {
		res := e.do(st.who, st.kind, st.tags...)
		if got := kindsOf(res.Metadata); !slices.Equal(got, st.want) {
			t.Fatalf("%s kind %d: emitted %v, want %v", st.who, st.kind, got, st.want)
		}
	}
}

// TestMetadataCreatedAtIncreases: replaceable events must be strictly newer
// each time even when the relay clock stands still.
func TestMetadataCreatedAtIncreases(t *testing.T) {
	e := setup(t)
	clock := e.now
	var last nostr.Timestamp
	for _, name := range []string{"a", "b", "c", "d"} {
		e.now = clock // every edit signed in the same second
		ev := e.ev("owner", kindEditMetadata, h("g"), nostr.Tag{"name", name})
		ev.CreatedAt = nostr.Timestamp(clock.Unix())
		_ = ev.Sign(e.sks["owner"])
		res, reason := e.submit(ev)
		if reason != "" {
			// Same-second edits may be refused by the ordering rule; that is fine.
			continue
		}
		at := res.Metadata[0].CreatedAt
		if at <= last {
			t.Fatalf("39000 created_at %d not after %d", at, last)
		}
		last = at
	}
	if last == 0 {
		t.Fatal("no edit accepted")
	}
}

// TestMetadataFlagsAndLimits: open/closed and public/private toggle, absent
// fields persist, and over-long fields are refused.
func TestMetadataFlagsAndLimits(t *testing.T) {
	e := setup(t)
	e.do("owner", kindEditMetadata, h("g"), nostr.Tag{"closed"}, nostr.Tag{"private"}, nostr.Tag{"about", "a"})
	e.do("owner", kindEditMetadata, h("g"), nostr.Tag{"open"})
	gi, _ := e.s.Group("g")
	if gi.Closed || !gi.Private || gi.About != "a" || gi.Name != "g" {
		t.Fatalf("group = %+v", gi)
	}
	long := make([]byte, maxName+1)
	e.refused("invalid:", "owner", kindEditMetadata, h("g"), nostr.Tag{"name", string(long)})
	e.do("owner", kindEditMetadata, h("g"), nostr.Tag{"name", ""})
	if gi, _ := e.s.Group("g"); gi.Name != "g" {
		t.Fatalf("empty name should fall back to the id, got %q", gi.Name)
	}
}
