package groups

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestRebuildReproducesState: replaying the stored log into a fresh State
// yields the same groups and the same 39000-39003 contents.
func TestRebuildReproducesState(t *testing.T) {
	e := newEnv(t)
	scenario(t, e)
	want := e.s.Groups()

	fresh := e.newState()
	if err := fresh.Rebuild(context.Background(), e.storedEvents()); err != nil {
		t.Fatal(err)
	}
	if got := fresh.Groups(); !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt groups\n got %+v\nwant %+v", got, want)
	}
	if res, _ := fresh.Sync(context.Background()); len(res) != 0 {
		t.Fatalf("stored metadata matches, yet Sync emitted %+v", res)
	}

	// Without the stored metadata, Sync must regenerate identical content.
	var logOnly []*nostr.Event
	for _, ev := range e.storedEvents() {
		if !IsMetadataKind(ev.Kind) {
			logOnly = append(logOnly, ev)
		}
	}
	lost := e.newState()
	if err := lost.Rebuild(context.Background(), logOnly); err != nil {
		t.Fatal(err)
	}
	res, err := lost.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		got := map[int]string{}
		for _, ev := range r.Metadata {
			got[ev.Kind] = canonical(ev.Tags)
		}
		if want := e.storedMeta(r.Group); !reflect.DeepEqual(got, want) {
			t.Errorf("group %s metadata\n got %v\nwant %v", r.Group, got, want)
		}
	}
	if len(res) != len(want) {
		t.Fatalf("Sync covered %d groups, want %d", len(res), len(want))
	}
}

// scenario drives a varied history through e: joins (open, closed,
// invited), approvals, roles, edits, leaves, a deleted group, and a
// workspace ban that hands one group over and empties another.
func scenario(t *testing.T, e *env) {
	e.do("owner", kindCreateGroup, h("g"), nostr.Tag{"name", "General"})
	e.do("owner", kindPutUser, h("g"), p(e.pk("admin"), RoleAdmin))
	e.do("bob", kindJoinRequest, h("g"))
	e.do("carol", kindJoinRequest, h("g"))
	e.do("carol", kindLeaveRequest, h("g"))
	e.do("owner", kindCreateGroup, h("club"), nostr.Tag{"closed"}, nostr.Tag{"private"})
	e.do("dave", kindJoinRequest, h("club"))
	e.do("erin", kindJoinRequest, h("club"))
	e.do("owner", kindPutUser, h("club"), p(e.pk("dave")))
	e.do("owner", kindCreateInvite, h("club"), nostr.Tag{"code", "k"})
	e.do("frank", kindJoinRequest, h("club"), nostr.Tag{"code", "k"})
	e.do("owner", kindPutUser, h("club"), p(e.pk("frank"), RoleAdmin))
	e.do("admin", kindEditMetadata, h("g"), nostr.Tag{"about", "everything"}, nostr.Tag{"picture", "https://x/y.png"})
	e.do("admin", kindRemoveUser, h("g"), p(e.pk("bob")))
	e.do("zed", kindCreateGroup, h("gone"))
	e.do("zed", kindDeleteGroup, h("gone"))
	e.do("admin", kindJoinRequest, h("club"))
	e.do("owner", kindCreateGroup, h("solo"))
	res, err := e.s.Remove(context.Background(), e.pk("owner"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		e.keep(r)
	}
}

// TestRebuildLogIsConsistent: replaying a store written by this package
// refuses nothing worth a warning — every stored entry, relay echoes
// included, replays cleanly.
func TestRebuildLogIsConsistent(t *testing.T) {
	e := newEnv(t)
	scenario(t, e)
	var buf bytes.Buffer
	fresh := e.newState()
	fresh.opts.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := fresh.Rebuild(context.Background(), e.storedEvents()); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 0 {
		t.Fatalf("rebuild warnings:\n%s", buf.String())
	}
}

// TestRebuildStopsOnCancel: a cancelled context ends the replay with its error.
func TestRebuildStopsOnCancel(t *testing.T) {
	e := newEnv(t)
	scenario(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.newState().Rebuild(ctx, e.storedEvents()); err == nil {
		t.Fatal("want context error")
	}
}
