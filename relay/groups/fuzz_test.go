package groups

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// TestRandomSequences feeds random, mostly-plausible moderation traffic from
// a small cast and checks after every step that nothing panicked and the
// invariants hold; at the end a rebuild from the store must agree.
func TestRandomSequences(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			e := newFastEnv(t)
			r := rand.New(rand.NewPCG(seed, 99))
			cast := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
			e.out[e.name(e.pk("u5"))] = true
			accepted := 0
			for step := 0; step < 300; step++ {
				if randomStep(e, r, cast) {
					accepted++
				}
				checkInvariants(t, e.s)
			}
			// Guard the generator itself: mostly-refused traffic would
			// leave the invariants untested.
			t.Logf("%d of 300 steps accepted", accepted)
			if accepted < 60 {
				t.Fatalf("only %d of 300 steps accepted", accepted)
			}
			var warnings bytes.Buffer
			fresh := e.newState()
			fresh.opts.Logger = slog.New(slog.NewTextHandler(&warnings, &slog.HandlerOptions{Level: slog.LevelWarn}))
			if err := fresh.Rebuild(context.Background(), e.storedEvents()); err != nil {
				t.Fatal(err)
			}
			if warnings.Len() > 0 {
				t.Fatalf("rebuild refused stored entries:\n%s", warnings.String())
			}
			if !reflect.DeepEqual(fresh.Groups(), e.s.Groups()) {
				t.Fatalf("rebuild diverged\n got %+v\nwant %+v", fresh.Groups(), e.s.Groups())
			}
		})
	}
}

// randomStep submits one random event (or a workspace ban), sometimes with
// a skewed clock or a malformed tag. It reports whether anything was accepted.
func randomStep(e *env, r *rand.Rand, cast []string) bool {
	who := cast[r.IntN(len(cast))]
	target := e.pk(cast[r.IntN(len(cast))])
	gid := []string{"a", "b", "c"}[r.IntN(3)]
	roles := []string{"", RoleMember, RoleAdmin, RoleOwner, "bogus"}
	kinds := []int{kindCreateGroup, kindPutUser, kindPutUser, kindRemoveUser, kindEditMetadata,
		kindDeleteEvent, kindCreateInvite, kindJoinRequest, kindJoinRequest,
		kindLeaveRequest, 9, 9, 9003}
	kind := kinds[r.IntN(len(kinds))]
	// Mostly create missing groups and act as someone in existing ones, so
	// that enough steps succeed for the state to get interesting.
	if gi, ok := e.s.Group(gid); !ok && r.IntN(3) > 0 {
		kind = kindCreateGroup
	} else if ok && r.IntN(3) > 0 {
		who = e.name(gi.Members[r.IntN(len(gi.Members))].PubKey)
	}
	tags := nostr.Tags{h(gid)}
	switch kind {
	case kindPutUser:
		tags = append(tags, p(target, roles[r.IntN(len(roles))]))
	case kindRemoveUser:
		tags = append(tags, p(target))
	case kindEditMetadata:
		flags := []string{"private", "public", "closed", "open", "name"}
		tags = append(tags, nostr.Tag{flags[r.IntN(len(flags))], "n"})
	case kindDeleteEvent:
		tags = append(tags, nostr.Tag{"e", randomStoredID(e, r)})
	case kindCreateInvite, kindJoinRequest:
		if kind == kindCreateInvite || r.IntN(2) == 0 {
			tags = append(tags, nostr.Tag{"code", []string{"k1", "k2"}[r.IntN(2)]})
		}
	}
	if r.IntN(40) == 0 {
		tags = append(tags, nostr.Tag{"h"}) // malformed
	}
	switch r.IntN(25) {
	case 0:
		res, err := e.s.Remove(context.Background(), target)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, x := range res {
			e.keep(x)
		}
		return len(res) > 0
	case 1:
		e.now = e.now.Add(-time.Duration(r.IntN(3)) * time.Second) // clock skew
	case 2:
		kind = kindDeleteGroup // rare: it wipes a group's history
	}
	_, reason := e.submit(e.ev(who, kind, tags...))
	return reason == ""
}

func randomStoredID(e *env, r *rand.Rand) string {
	for id := range e.store {
		if r.IntN(4) == 0 {
			return id
		}
	}
	return "0000000000000000000000000000000000000000000000000000000000000000"
}

// checkInvariants: every group has an owner, every role is known, nobody is
// both member and pending, and the metadata clocks only rise.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	for _, gi := range s.Groups() {
		owners := 0
		members := map[string]bool{}
		for _, m := range gi.Members {
			if rank(m.Role) == 0 {
				t.Fatalf("group %s: invalid role %q", gi.ID, m.Role)
			}
			if m.Role == RoleOwner {
				owners++
			}
			members[m.PubKey] = true
		}
		if owners == 0 {
			t.Fatalf("group %s has no owner: %+v", gi.ID, gi.Members)
		}
		for _, pk := range gi.Pending {
			if members[pk] {
				t.Fatalf("group %s: %s both member and pending", gi.ID, pk)
			}
		}
	}
}

// TestConcurrentUse exercises the locks: readers and writers at once (run
// with -race to make it meaningful).
func TestConcurrentUse(t *testing.T) {
	e := setup(t)
	var evs []*nostr.Event
	for i := range 50 {
		evs = append(evs, e.ev(fmt.Sprintf("j%d", i), kindJoinRequest, h("g")))
	}
	var wg sync.WaitGroup
	for _, ev := range evs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if e.s.Check(ev) == "" {
				_, _ = e.s.Apply(context.Background(), ev)
			}
		}()
		go func() {
			defer wg.Done()
			_ = e.s.CanRead(ev.PubKey, "g")
			_ = e.s.Groups()
		}()
	}
	wg.Wait()
	checkInvariants(t, e.s)
}

// FuzzCheck: arbitrary tags on any kind never panic Check or Apply.
func FuzzCheck(f *testing.F) {
	f.Add(kindPutUser, "g", "p", "zz", "admin")
	f.Add(kindJoinRequest, "g", "code", "", "")
	f.Add(9, "g", "e", "x", "reply")
	f.Fuzz(func(t *testing.T, kind int, gid, tag, v1, v2 string) {
		e := setup(t)
		ev := e.ev("admin", kind%40000, h(gid), nostr.Tag{tag, v1, v2}, nostr.Tag{tag})
		if e.s.Check(ev) == "" {
			_, _ = e.s.Apply(context.Background(), ev)
		}
		checkInvariants(t, e.s)
	})
}
