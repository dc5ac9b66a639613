package groups

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// env is a relay in miniature: a State, a clock, named users and a store
// that applies Results the way the relay is expected to.
type env struct {
	t     testing.TB
	s     *State
	relay Signer
	fast  bool // hash instead of sign user events (random tests sign thousands)
	now   time.Time
	sks   map[string]string // user name → secret key
	pks   map[string]string // user name → pubkey
	out   map[string]bool   // names outside the workspace
	store map[string]*nostr.Event
}

func newEnv(t testing.TB) *env {
	t.Helper()
	rk, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, relay: rk, now: time.Unix(1_800_000_000, 0),
		sks: map[string]string{}, pks: map[string]string{}, out: map[string]bool{},
		store: map[string]*nostr.Event{}}
	e.s = e.newState()
	return e
}

// newState builds a State sharing the env's relay key, clock and workspace.
func (e *env) newState() *State {
	return New(e.relay, Options{
		Now:             func() time.Time { return e.now },
		WorkspaceMember: func(pk string) bool { return !e.out[e.name(pk)] },
		Lookup:          func(id string) *nostr.Event { return e.store[id] },
	})
}

// pk returns the pubkey of a named user, creating the user on first use.
func (e *env) pk(name string) string {
	if pk, ok := e.pks[name]; ok {
		return pk
	}
	sk := nostr.GeneratePrivateKey()
	pk, _ := nostr.GetPublicKey(sk)
	e.sks[name], e.pks[name] = sk, pk
	return pk
}

func (e *env) name(pk string) string {
	for n, p := range e.pks {
		if p == pk {
			return n
		}
	}
	return ""
}

// ev signs an event by a named user at the current time, then ticks the
// clock so consecutive events never share a second unless a test wants to.
func (e *env) ev(who string, kind int, tags ...nostr.Tag) *nostr.Event {
	e.pk(who)
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(e.now.Unix()), Tags: tags, Content: "x"}
	if e.fast {
		ev.PubKey = e.pks[who]
		ev.ID = ev.GetID()
	} else if err := ev.Sign(e.sks[who]); err != nil {
		e.t.Fatal(err)
	}
	e.now = e.now.Add(time.Second)
	return ev
}

// submit runs ev through Check and Apply as the relay would, storing what
// the Result says. It returns the Result and the refusal reason.
func (e *env) submit(ev *nostr.Event) (Result, string) {
	e.t.Helper()
	if reason := e.s.Check(ev); reason != "" {
		return Result{}, reason
	}
	res, err := e.s.Apply(context.Background(), ev)
	if err != nil {
		e.t.Fatalf("Check accepted kind %d but Apply refused: %v", ev.Kind, err)
	}
	e.store[ev.ID] = ev
	e.keep(res)
	return res, ""
}

// keep applies a Result to the store: deletions, then relay events, with
// replaceable semantics for 39000-39003.
func (e *env) keep(res Result) {
	for _, d := range res.Deletions {
		for id, ev := range e.store {
			if d.Matches(ev) {
				delete(e.store, id)
			}
		}
	}
	for _, ev := range res.Moderation {
		e.store[ev.ID] = ev
	}
	for _, ev := range res.Metadata {
		for id, old := range e.store {
			if old.Kind == ev.Kind && groupOf(old) == groupOf(ev) {
				delete(e.store, id)
			}
		}
		e.store[ev.ID] = ev
	}
}

// do submits an event and fails the test unless it is accepted.
func (e *env) do(who string, kind int, tags ...nostr.Tag) Result {
	e.t.Helper()
	res, reason := e.submit(e.ev(who, kind, tags...))
	if reason != "" {
		e.t.Fatalf("%s kind %d %v refused: %s", who, kind, tags, reason)
	}
	return res
}

// refused submits an event and fails the test unless it is refused with
// the given prefix.
func (e *env) refused(prefix, who string, kind int, tags ...nostr.Tag) {
	e.t.Helper()
	if _, reason := e.submit(e.ev(who, kind, tags...)); !strings.HasPrefix(reason, prefix) {
		e.t.Fatalf("%s kind %d %v: got %q, want prefix %q", who, kind, tags, reason, prefix)
	}
}

// storedEvents returns the store's contents, as Rebuild would read them.
func (e *env) storedEvents() []*nostr.Event {
	out := make([]*nostr.Event, 0, len(e.store))
	for _, ev := range e.store {
		out = append(out, ev)
	}
	return out
}

// storedMeta returns the tags of the stored 3900x of a group, by kind.
func (e *env) storedMeta(gid string) map[int]string {
	m := map[int]string{}
	for _, ev := range e.store {
		if IsMetadataKind(ev.Kind) && groupOf(ev) == gid {
			m[ev.Kind] = canonical(ev.Tags)
		}
	}
	return m
}

// newFastEnv is newEnv without real signatures, which State never checks
// (the relay verifies them before Check); it keeps random tests quick.
func newFastEnv(t testing.TB) *env {
	e := newEnv(t)
	e.fast = true
	e.relay = hashSigner{pk: e.relay.PublicKey()}
	e.s = e.newState()
	return e
}

// hashSigner "signs" by setting the pubkey and id only.
type hashSigner struct{ pk string }

func (h hashSigner) PublicKey() string { return h.pk }

func (h hashSigner) SignEvent(_ context.Context, ev *nostr.Event) error {
	ev.PubKey = h.pk
	ev.ID = ev.GetID()
	return nil
}

func h(gid string) nostr.Tag { return nostr.Tag{"h", gid} }

func p(pk string, roles ...string) nostr.Tag { return append(nostr.Tag{"p", pk}, roles...) }

// setup creates group "g" owned by "owner" with "admin" and "member".
func setup(t testing.TB, extra ...nostr.Tag) *env {
	e := newEnv(t)
	e.do("owner", kindCreateGroup, append([]nostr.Tag{h("g")}, extra...)...)
	e.do("owner", kindPutUser, h("g"), p(e.pk("admin"), RoleAdmin))
	e.do("admin", kindPutUser, h("g"), p(e.pk("member")))
	return e
}

// kindsOf lists the kinds of events, in order.
func kindsOf(evs []*nostr.Event) []int {
	var ks []int
	for _, ev := range evs {
		ks = append(ks, ev.Kind)
	}
	return ks
}
