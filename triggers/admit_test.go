package triggers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Several state events of one repository can reach admit in one batch
// (pushes in quick succession): each is compared with the state before
// it, not all with the last state journaled before the batch — or a push
// would run again for the refs the pushes before it changed.
func TestAdmitBatchComparesEachStateWithThePrevious(t *testing.T) {
	key, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	relay, owner := strings.Repeat("ee", 32), strings.Repeat("aa", 32)
	cfg, err := Parse([]byte(fmt.Sprintf(`
relay = "ws://127.0.0.1:1"
state_dir = %q
[[trigger]]
name = "t"
worker = %q
tool = "echo"
reply = "channel:ci"
[trigger.filter]
kinds = [30618]
`, t.TempDir(), owner)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(cfg, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.relayPK = relay
	r.journal = openTest(t, cfg.StateDir)
	defer r.journal.close()

	now := nostr.Now()
	state := func(id string, at nostr.Timestamp, refs ...string) *nostr.Event {
		ev := &nostr.Event{ID: id, PubKey: relay, Kind: nostr.KindRepositoryState, CreatedAt: at,
			Tags: nostr.Tags{{"d", owner + "/app"}, {"HEAD", "ref: refs/heads/main"}}}
		for _, ref := range refs {
			ev.Tags = append(ev.Tags, nostr.Tag{ref, strings.Repeat("1", 40)})
		}
		return ev
	}
	must(t, r.admit([]*nostr.Event{state("s1", now, "refs/heads/main")}))
	must(t, r.admit([]*nostr.Event{
		state("s2", now+1, "refs/heads/main", "refs/heads/a"),
		state("s3", now+2, "refs/heads/main", "refs/heads/a", "refs/heads/b"),
	}))
	got := map[string]string{}
	for _, e := range r.journal.unfinished() {
		got[e.EventID] = e.Repo.Ref
	}
	want := map[string]string{"s1": "refs/heads/main", "s2": "refs/heads/a", "s3": "refs/heads/b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pushed refs by event: %v, want %v", got, want)
	}
	if latest := r.journal.repo(owner + "/app"); latest == nil || latest.StateEvent != "s3" {
		t.Fatalf("latest state journaled: %+v, want s3", latest)
	}
}
