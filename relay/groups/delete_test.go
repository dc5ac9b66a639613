package groups

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestDeleteEvent: authors delete their own messages, admins anyone's in
// their group, other members nobody's; the log itself is never deletable.
func TestDeleteEvent(t *testing.T) {
	e := setup(t)
	e.do("owner", kindCreateGroup, h("other"))
	mine := e.ev("member", 9, h("g"))
	theirs := e.ev("owner", 9, h("g"))
	elsewhere := e.ev("owner", 9, h("other"))
	for _, ev := range []*nostr.Event{mine, theirs, elsewhere} {
		if _, reason := e.submit(ev); reason != "" {
			t.Fatal(reason)
		}
	}
	putEv := e.ev("admin", kindPutUser, h("g"), p(e.pk("x")))
	e.submit(putEv)

	e.refused("restricted:", "member", kindDeleteEvent, h("g"), nostr.Tag{"e", theirs.ID})
	e.refused("invalid:", "admin", kindDeleteEvent, h("g"), nostr.Tag{"e", elsewhere.ID})
	e.refused("invalid:", "admin", kindDeleteEvent, h("g"), nostr.Tag{"e", putEv.ID})
	e.refused("invalid:", "admin", kindDeleteEvent, h("g"))

	res := e.do("member", kindDeleteEvent, h("g"), nostr.Tag{"e", mine.ID})
	if len(res.Deletions) != 1 || e.store[mine.ID] != nil {
		t.Fatalf("author delete: %+v", res.Deletions)
	}
	e.do("admin", kindDeleteEvent, h("g"), nostr.Tag{"e", theirs.ID})
	if e.store[theirs.ID] != nil || e.store[elsewhere.ID] == nil || e.store[putEv.ID] == nil {
		t.Fatal("admin delete removed the wrong events")
	}
}

// TestDeleteEventWithoutLookup: with no store access the deletion is
// confined to the member's own events in the group instead of refused.
func TestDeleteEventWithoutLookup(t *testing.T) {
	e := setup(t)
	e.s.opts.Lookup = nil
	theirs := e.ev("owner", 9, h("g"))
	e.submit(theirs)
	res := e.do("member", kindDeleteEvent, h("g"), nostr.Tag{"e", theirs.ID})
	d := res.Deletions[0]
	if d.Author != e.pk("member") || d.Matches(theirs) || e.store[theirs.ID] == nil {
		t.Fatalf("deletion %+v would remove someone else's event", d)
	}
	if f := d.Filters()[0]; len(f.Authors) != 1 || f.Tags["h"][0] != "g" {
		t.Fatalf("filter = %v", f)
	}
}

// TestDeleteGroup: owners only; the group vanishes with its content and
// metadata, except the 9008 itself.
func TestDeleteGroup(t *testing.T) {
	e := setup(t)
	msg := e.ev("member", 9, h("g"))
	e.submit(msg)
	e.refused("restricted:", "admin", kindDeleteGroup, h("g"))
	del := e.ev("owner", kindDeleteGroup, h("g"))
	res, reason := e.submit(del)
	if reason != "" || len(res.Deletions) != 1 || len(res.Metadata) != 0 {
		t.Fatalf("delete-group: %q %+v", reason, res)
	}
	if _, ok := e.s.Group("g"); ok || e.s.CanRead(e.pk("member"), "g") {
		t.Fatal("group survived")
	}
	for _, ev := range e.store {
		if groupOf(ev) == "g" && ev.ID != del.ID {
			t.Fatalf("kind %d of the deleted group kept", ev.Kind)
		}
	}
	if e.store[del.ID] == nil {
		t.Fatal("the 9008 itself was deleted")
	}
	e.refused("invalid:", "member", 9, h("g"))
	// The id may be reused, and its new metadata outdates the old.
	res = e.do("outsider", kindCreateGroup, h("g"))
	if len(res.Metadata) != 4 {
		t.Fatalf("re-created group emitted %v", kindsOf(res.Metadata))
	}
}
