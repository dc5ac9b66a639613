package relay_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// The relay-signed 39000-39003 match the channel's state exactly after each
// of a sequence of changes (create, edit metadata, add an admin, add
// members, remove one, promote one, flip the flags): flags as 9007/9002 set
// them, admins with their roles, members, and the fixed roles. A kind is
// republished only when it changes, each time with a later created_at; a
// live subscriber ends with the same events; a restart changes nothing and
// later changes still supersede; a private channel's metadata is for its
// members only.
func TestChannelMetadataMatchesState(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	owner := newChanPeer(t, r, r.Member)
	admin := newChanPeer(t, r, r.Admin)
	x := newChanPeer(t, r, chanWorkspaceKey(t, r))
	y := newChanPeer(t, r, chanWorkspaceKey(t, r))
	outsider := newChanPeer(t, r, chanWorkspaceKey(t, r))
	h := nostr.Tag{"h", "meta"}
	metaFilter := nostr.Filter{Kinds: []int{39000, 39001, 39002, 39003}, Tags: nostr.TagMap{"d": {"meta"}}}

	// The expected state, kept by the test.
	name, about, picture, private, closed := "Metadata", "", "", true, false
	roles := map[string]string{}
	expected := func() map[int]nostr.Tags {
		flag := func(on bool, yes, no string) nostr.Tag {
			if on {
				return nostr.Tag{yes}
			}
			return nostr.Tag{no}
		}
		meta := nostr.Tags{{"d", "meta"}, {"name", name}}
		if about != "" {
			meta = append(meta, nostr.Tag{"about", about})
		}
		if picture != "" {
			meta = append(meta, nostr.Tag{"picture", picture})
		}
		meta = append(meta, flag(private, "private", "public"), flag(closed, "closed", "open"), nostr.Tag{"restricted"})
		admins, members := nostr.Tags{{"d", "meta"}}, nostr.Tags{{"d", "meta"}}
		for _, pk := range slices.Sorted(maps.Keys(roles)) {
			if roles[pk] != "member" {
				admins = append(admins, nostr.Tag{"p", pk, roles[pk]})
			}
			members = append(members, nostr.Tag{"p", pk})
		}
		return map[int]nostr.Tags{39000: meta, 39001: admins, 39002: members, 39003: {
			{"d", "meta"},
			{"role", "owner", "full control, including deleting the group and managing admins"},
			{"role", "admin", "edits metadata, adds and removes members, deletes messages"},
			{"role", "member", "reads and posts"},
		}}
	}

	live := newChanLive(t, r, owner.key, metaFilter)
	var prev map[int]nostr.Event
	check := func(step string, changed ...int) map[int]nostr.Event {
		t.Helper()
		got := chanMeta(t, r, owner, "meta")
		for kind, want := range expected() {
			ev, ok := got[kind]
			if !ok {
				t.Fatalf("%s: no %d", step, kind)
			}
			if chanCanonTags(ev.Tags) != chanCanonTags(want) || ev.Content != "" {
				t.Fatalf("%s: %d is\n %s %q\nwant\n %s", step, kind, chanCanonTags(ev.Tags), ev.Content, chanCanonTags(want))
			}
			if prev == nil {
				continue
			}
			if slices.Contains(changed, kind) {
				if ev.CreatedAt <= prev[kind].CreatedAt {
					t.Fatalf("%s: new %d is not newer than the previous one (%d <= %d)", step, kind, ev.CreatedAt, prev[kind].CreatedAt)
				}
			} else if ev.ID != prev[kind].ID {
				t.Fatalf("%s: %d republished without a change", step, kind)
			}
		}
		if len(got) != 4 {
			t.Fatalf("%s: %d metadata kinds", step, len(got))
		}
		prev = got
		return got
	}

	owner.send(9007, "", h, nostr.Tag{"name", "Metadata"}, nostr.Tag{"private"})
	roles[owner.pk()] = "owner"
	check("created")
	chanHasIDs(t, "outsider reads a private channel's metadata", outsider.fetch(metaFilter))

	owner.send(9002, "", h, nostr.Tag{"name", "Meta team"}, nostr.Tag{"about", "where metadata lives"},
		nostr.Tag{"picture", "https://example.com/meta.png"}, nostr.Tag{"closed"})
	name, about, picture, closed = "Meta team", "where metadata lives", "https://example.com/meta.png", true
	check("metadata edited", 39000)

	owner.send(9000, "", h, nostr.Tag{"p", admin.pk(), "admin"})
	roles[admin.pk()] = "admin"
	check("admin added", 39001, 39002)

	admin.send(9000, "", h, nostr.Tag{"p", x.pk(), "member"})
	roles[x.pk()] = "member"
	check("member added", 39002)
	chanHasIDs(t, "a member reads the metadata", x.fetch(metaFilter), chanIDs(slices.Collect(maps.Values(prev)))...)

	admin.send(9000, "", h, nostr.Tag{"p", y.pk()})
	roles[y.pk()] = "member"
	check("second member added", 39002)

	admin.send(9001, "", h, nostr.Tag{"p", x.pk()})
	delete(roles, x.pk())
	check("member removed", 39002)
	chanHasIDs(t, "a removed member reads the metadata", x.fetch(metaFilter))

	owner.send(9000, "", h, nostr.Tag{"p", y.pk(), "admin"})
	roles[y.pk()] = "admin"
	check("member promoted", 39001)

	// Only the flags named change; an admin may edit.
	admin.send(9002, "", h, nostr.Tag{"public"})
	private = false
	check("made public", 39000)
	y.send(9002, "", h, nostr.Tag{"open"}, nostr.Tag{"about", ""})
	closed, about = false, ""
	final := check("opened", 39000)
	chanHasIDs(t, "outsider reads a public channel's metadata", outsider.fetch(metaFilter), chanIDs(slices.Collect(maps.Values(final)))...)

	// A live subscriber saw every version and ends with the stored ones.
	last := map[int]nostr.Event{}
	for _, ev := range live.received() {
		if prior, ok := last[ev.Kind]; ok && ev.CreatedAt <= prior.CreatedAt {
			t.Fatalf("live %d went back in time", ev.Kind)
		}
		last[ev.Kind] = ev
	}
	for kind, ev := range final {
		if last[kind].ID != ev.ID {
			t.Fatalf("live subscriber's last %d differs from the stored one", kind)
		}
	}

	r.Restart(t)
	owner = newChanPeer(t, r, r.Member)
	check("after restart")
	// The rebuilt state continues the stored events' clocks.
	owner.send(9001, "", h, nostr.Tag{"p", y.pk()})
	delete(roles, y.pk())
	check("admin removed after restart", 39001, 39002)
}

func chanCanonTags(tags nostr.Tags) string {
	var b []byte
	for _, t := range tags {
		b = append(b, '[')
		for i, v := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, v...)
			b = append(b, '"')
		}
		b = append(b, ']')
	}
	return string(b)
}
