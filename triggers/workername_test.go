package triggers_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// byNameTOML calls the worker announced as "ci-worker" on every message
// in the channel; the filter does not name "$worker", so the name is
// resolved when the first event comes.
const byNameTOML = `
relay = %[1]q
state_dir = %[2]q

[[trigger]]
name = "by-name"
worker_name = "ci-worker"
tool = "echo"
reply = "channel:%[4]s"
timeout = "20s"

[trigger.filter]
kinds = [9]
h = [%[4]q]

[trigger.arguments]
text = "{{.Event.Content}}"
`

// decoy serves the test tools as another member, announced as "decoy".
func (f *fixture) decoy(key *signer.Local) *testTools {
	tt := newTestTools()
	f.serveWorker(key, "decoy", tt, nil)
	return tt
}

// withMember makes key a workspace member too.
func withMember(key *signer.Local) fixtureOptions {
	return fixtureOptions{lateWorker: true, relay: func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, key.PublicKey())
	}}
}

// The worker named in worker_name is not there when the event comes: the
// runner looks for it again, with backoff, finds it by its announcement
// once it starts, and calls it (and not another worker) once.
func TestWorkerNameResolvedWhenWorkerAppears(t *testing.T) {
	decoyKey := testutil.NewKey(t)
	f := newFixtureWith(t, withMember(decoyKey))
	decoy := f.decoy(decoyKey)
	f.start(t.TempDir(), byNameTOML)
	ev := f.publish(f.r.Member, 9, "hello", nostr.Tag{"h", f.channel})
	// Not a deadline: the worker starts after the runner's first lookups.
	time.Sleep(1500 * time.Millisecond)
	f.startWorker()

	msg := f.waitMessages(1)[0]
	if !strings.HasPrefix(msg.Content, "by-name: echo succeeded") || !strings.Contains(msg.Content, "echo: hello") ||
		!hasTag(msg, "e", ev.ID, "", "mention") {
		t.Fatalf("unexpected message:\n%s\n%v", msg.Content, msg.Tags)
	}
	var doc struct {
		Worker string `json:"worker"`
	}
	if err := json.Unmarshal([]byte(f.record(msg).Content), &doc); err != nil || doc.Worker != f.worker.PublicKey() {
		t.Fatalf("result record names worker %q (%v), want %s", doc.Worker, err, f.worker.PublicKey())
	}
	if got := f.tools.echoes(); strings.Join(got, ",") != "hello" {
		t.Fatalf("worker echoed %q, want [hello]", got)
	}
	if got := decoy.echoes(); len(got) != 0 {
		t.Fatalf("decoy was called: %q", got)
	}
}

// askTOML is the shipped "ask-worker" example: worker_name, and a filter
// on messages whose p tag is "$worker" — resolved from the announcement
// before the runner subscribes.
const askTOML = `
relay = %[1]q
state_dir = %[2]q

[[trigger]]
name = "ask-worker"
worker_name = "ci-worker"
tool = "{{.Mention.Tool}}"
allowed_tools = ["echo"]
arguments_json = '{{or .Mention.Rest "{}"}}'
reply = "thread"
timeout = "20s"

[trigger.filter]
kinds = [9]
p = ["$worker"]
`

// A runner whose filter names "$worker" waits for the named worker to
// announce itself, then reacts to messages mentioning that worker only.
func TestWorkerNameInFilterResolvedAtStart(t *testing.T) {
	decoyKey := testutil.NewKey(t)
	f := newFixtureWith(t, withMember(decoyKey))
	decoy := f.decoy(decoyKey)
	r := f.launch(t.TempDir(), askTOML, nil)
	select {
	case <-r.ready:
		t.Fatal("runner ready before the worker it names in its filter announced itself")
	default:
	}
	f.startWorker()
	r.waitReady(t)

	now := nostr.Now()
	f.publish(f.r.Member, 9, "nostr:"+decoyKey.NPub()+` echo {"text":"to the decoy"}`,
		nostr.Tag{"h", f.channel}, nostr.Tag{"p", decoyKey.PublicKey()})
	ask := f.mention(`echo {"text":"to the worker"}`, now+1)
	msgs := f.waitUntil("reply to the worker's mention", func(msgs []*nostr.Event) bool {
		return strings.Contains(contents(msgs), "echo: to the worker")
	})
	if len(msgs) != 1 || !hasTag(msgs[0], "e", ask.ID, "", "root") {
		t.Fatalf("want one reply, in the mention's thread:%s", contents(msgs))
	}
	if got := f.tools.echoes(); strings.Join(got, ",") != "to the worker" {
		t.Fatalf("worker echoed %q, want [to the worker]", got)
	}
	if got := decoy.echoes(); len(got) != 0 {
		t.Fatalf("decoy was called: %q", got)
	}
}
