package triggers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// pushTOML runs the built-in shell on every push state event (30618) from
// the relay; the command fails on a branch called "broken".
const pushTOML = `
relay = %[1]q
state_dir = %[2]q

[[trigger]]
name = "test-on-push"
worker = %[3]q
tool = "shell"
reply = "channel:%[4]s"

[trigger.filter]
kinds = [30618]
authors = ["$relay"]

[trigger.arguments]
command = "echo checking {{.Repo.Name}} {{shq .Repo.Ref}} {{.Repo.Short}}; test {{shq .Repo.Branch}} != broken"
timeout = 30000

[trigger.message]
ok = "tests passed on {{.Repo.Branch}} ({{.Repo.Short}})"
fail = "tests failed on {{.Repo.Branch}} ({{.Repo.Short}})"
`

// pushState publishes a relay-signed state event for r.Member's repo "app".
func (f *fixture) pushState(at nostr.Timestamp, refs ...[2]string) nostr.Event {
	f.t.Helper()
	return f.pushStateOf(f.r.Member, "app", at, refs...)
}

// pushStateOf publishes a relay-signed state event for owner's repo.
func (f *fixture) pushStateOf(owner *signer.Local, repo string, at nostr.Timestamp, refs ...[2]string) nostr.Event {
	f.t.Helper()
	pk := owner.PublicKey()
	tags := nostr.Tags{{"d", pk + "/" + repo}, {"a", "30617:" + pk + ":" + repo}, {"p", pk},
		{"clone", f.r.HTTPURL + "/git/" + owner.NPub() + "/" + repo + ".git"}}
	for _, r := range refs {
		tags = append(tags, nostr.Tag{r[0], r[1]})
	}
	tags = append(tags, nostr.Tag{"HEAD", "ref: refs/heads/main"})
	ev := nostr.Event{Kind: nostr.KindRepositoryState, CreatedAt: at, Tags: tags}
	if err := f.r.Server.Signer().SignEvent(ctx(f.t), &ev); err != nil {
		f.t.Fatal(err)
	}
	if err := f.r.Server.PublishInternal(ctx(f.t), &ev); err != nil {
		f.t.Fatal(err)
	}
	return ev
}

const (
	sha1 = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sha2 = "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestPushRunsShellAndReports(t *testing.T) {
	f := newFixture(t, nil)
	f.start(t.TempDir(), pushTOML)
	now := nostr.Now()
	first := f.pushState(now, [2]string{"refs/heads/main", sha1})
	msg := f.waitMessages(1)[0]
	if !strings.HasPrefix(msg.Content, "tests passed on main (1111111): exit 0") ||
		!strings.Contains(msg.Content, "checking app refs/heads/main 1111111") {
		t.Fatalf("unexpected pass message:\n%s", msg.Content)
	}
	owner := f.r.Member.PublicKey()
	for _, want := range [][]string{{"h", f.channel}, {"e", first.ID, "", "mention"}, {"a", "30617:" + owner + ":app"}} {
		if !hasTag(msg, want...) {
			t.Errorf("message lacks tag %q: %v", want, msg.Tags)
		}
	}
	var doc struct {
		OK     bool `json:"ok"`
		Result struct {
			Structured struct {
				ExitCode int    `json:"exit_code"`
				Stdout   string `json:"stdout"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	rec := f.record(msg)
	if err := json.Unmarshal([]byte(rec.Content), &doc); err != nil || !doc.OK ||
		!strings.Contains(doc.Result.Structured.Stdout, "checking app") || !hasTag(rec, "h", f.channel) {
		t.Fatalf("result record %v: %s", err, rec.Content)
	}

	// The next state adds a branch: that is the ref tested, and it fails.
	f.pushState(now+1, [2]string{"refs/heads/broken", sha2}, [2]string{"refs/heads/main", sha1})
	msgs := f.waitMessages(2)
	if msg = msgs[1]; msg.ID == msgs[0].ID || strings.Contains(msg.Content, "passed") {
		msg = msgs[0] // same second: either order
	}
	if !strings.HasPrefix(msg.Content, "tests failed on broken (2222222): exit 1") ||
		!strings.Contains(msg.Content, "checking app refs/heads/broken 2222222") {
		t.Fatalf("unexpected failure message:\n%s", msg.Content)
	}
}

// A state event signed by someone other than the relay is not a push.
func TestPushIgnoresForgedState(t *testing.T) {
	f := newFixture(t, nil)
	f.start(t.TempDir(), pushTOML)
	owner := f.r.Member.PublicKey()
	f.publish(f.r.Member, nostr.KindRepositoryState, "", nostr.Tag{"d", owner + "/app"},
		nostr.Tag{"refs/heads/main", sha2}, nostr.Tag{"HEAD", "ref: refs/heads/main"})
	f.pushState(nostr.Now(), [2]string{"refs/heads/main", sha1})
	msgs := f.waitMessages(1)
	if !strings.Contains(msgs[0].Content, "1111111") {
		t.Fatalf("unexpected message:%s", contents(msgs))
	}
}

// reply = "repo-channel" posts in the channel the repository's
// announcement names.
func TestPushRepliesInRepoChannel(t *testing.T) {
	f := newFixture(t, nil)
	f.publish(f.r.Member, nostr.KindRepositoryAnnouncement, "", nostr.Tag{"d", "app"}, nostr.Tag{"h", f.channel})
	f.start(t.TempDir(), strings.Replace(pushTOML, `reply = "channel:%[4]s"`, `reply = "repo-channel"`, 1))
	f.pushState(nostr.Now(), [2]string{"refs/heads/main", sha1})
	if msg := f.waitMessages(1)[0]; !strings.HasPrefix(msg.Content, "tests passed on main") {
		t.Fatalf("unexpected message:\n%s", msg.Content)
	}
}
