package triggers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
)

// mentionTOML: a kind-9 message mentioning the worker calls the tool it
// names, with the rest of the message as JSON arguments, and the result is
// replied in the message's thread.
const mentionTOML = `
relay = %[1]q
state_dir = %[2]q

[[trigger]]
name = "mention"
worker = %[3]q
tool = "{{.Mention.Tool}}"
allowed_tools = ["echo", "block"]
arguments_json = '{{or .Mention.Rest "{}"}}'
reply = "thread"
timeout = "20s"
since = "1h"

[trigger.filter]
kinds = [9]
h = [%[4]q]
p = ["$worker"]
`

// mention publishes a message in the channel addressed to the worker.
func (f *fixture) mention(text string, at nostr.Timestamp, extra ...nostr.Tag) nostr.Event {
	f.t.Helper()
	tags := append(nostr.Tags{{"h", f.channel}, {"p", f.worker.PublicKey()}}, extra...)
	ev := nostr.Event{Kind: 9, CreatedAt: at, Content: "nostr:" + f.worker.NPub() + " " + text, Tags: tags}
	if err := f.r.Member.SignEvent(ctx(f.t), &ev); err != nil {
		f.t.Fatal(err)
	}
	f.publishEvent(f.r.Member, &ev)
	return ev
}

func TestMentionRepliesInThread(t *testing.T) {
	f := newFixture(t, nil)
	f.start(t.TempDir(), mentionTOML)
	root := f.publish(f.r.Member, 9, "release checklist", nostr.Tag{"h", f.channel})
	ask := f.mention(`echo {"text":"hi"}`, nostr.Now(), nostr.Tag{"e", root.ID, "", "root"})

	msg := f.waitMessages(1)[0]
	if got := f.tools.echoes(); len(got) != 1 || got[0] != "hi" {
		t.Fatalf("echo ran with %q, want [hi]", got)
	}
	if !strings.Contains(msg.Content, "mention: echo succeeded") || !strings.Contains(msg.Content, "echo: hi") {
		t.Fatalf("reply does not report the result:\n%s", msg.Content)
	}
	for _, want := range [][]string{{"h", f.channel}, {"e", root.ID, "", "root"}, {"e", ask.ID, "", "reply"}, {"p", f.r.Member.PublicKey()}} {
		if !hasTag(msg, want...) {
			t.Errorf("reply lacks tag %q: %v", want, msg.Tags)
		}
	}

	// A tool failure is a clear failure message; a tool outside
	// allowed_tools is never called.
	f.mention(`echo {"text": 5}`, nostr.Now())
	f.mention(`shell {"command":"true"}`, nostr.Now())
	all := contents(f.waitMessages(3))
	if !strings.Contains(all, "mention: echo failed: invalid_params") {
		t.Errorf("no failure message for bad arguments:%s", all)
	}
	if !strings.Contains(all, `tool "shell" is not in this trigger's allowed_tools`) {
		t.Errorf("no refusal for a tool outside allowed_tools:%s", all)
	}
}

// The journal survives a restart: the relay serves the handled message
// again to the new runner, which does not run it again.
func TestDedupeSurvivesRestart(t *testing.T) {
	f := newFixture(t, nil)
	state := t.TempDir()
	first := f.start(state, mentionTOML)
	f.mention(`echo {"text":"one"}`, nostr.Now())
	f.waitMessages(1)
	first.stop(t)

	f.start(state, mentionTOML)
	f.mention(`echo {"text":"two"}`, nostr.Now())
	// Events are handled in order, so once "two" is answered, "one" would
	// have run again before it.
	f.waitMessages(2)
	if got := f.tools.echoes(); strings.Join(got, ",") != "one,two" {
		t.Fatalf("echo ran with %q, want [one two]", got)
	}
}

// Two stored events reach a starting runner in one backlog; they run in
// created_at order, not in the order they were published.
func TestOrderPerTrigger(t *testing.T) {
	f := newFixture(t, nil)
	now := nostr.Now()
	f.mention(`echo {"text":"second"}`, now+2)
	f.mention(`echo {"text":"first"}`, now+1)
	f.start(t.TempDir(), mentionTOML)
	f.waitMessages(2)
	if got := f.tools.echoes(); strings.Join(got, ",") != "first,second" {
		t.Fatalf("echo ran in order %q, want [first second]", got)
	}
}

// A runner killed while its call runs: the call is not made again by the
// next runner, which collects the result from the relay's mailbox and
// posts it once.
func TestKilledMidCallCollectsResult(t *testing.T) {
	f := newFixture(t, nil)
	state := t.TempDir()
	first := f.start(state, mentionTOML)
	ask := f.mention(`block {"text":"slow"}`, nostr.Now())
	waitStarted(t, f)
	time.Sleep(200 * time.Millisecond) // the relay's OK is journaled: the call is known to be sent
	first.stop(t)
	close(f.tools.release) // the worker finishes while no runner listens
	time.Sleep(500 * time.Millisecond)

	f.start(state, mentionTOML)
	msg := f.waitMessages(1)[0]
	if !strings.Contains(msg.Content, "unblocked: slow") || !hasTag(msg, "e", ask.ID, "", "root") {
		t.Fatalf("unexpected reply:\n%s\n%v", msg.Content, msg.Tags)
	}
	f.mention(`echo {"text":"after"}`, nostr.Now())
	f.waitMessages(2)
	if n := f.tools.blocks(); n != 1 {
		t.Fatalf("block ran %d times, want 1", n)
	}
}

// Beyond the mailbox window the result cannot be collected: the next
// runner says so, and still does not run the call again.
func TestResultLostBeyondMailbox(t *testing.T) {
	f := newFixture(t, func(c *config.Config) { c.ToolBus.MailboxSeconds = 1 })
	state := t.TempDir()
	toml := strings.Replace(mentionTOML, `timeout = "20s"`, `timeout = "2s"`, 1)
	first := f.start(state, toml)
	f.mention(`block {"text":"slow"}`, nostr.Now())
	waitStarted(t, f)
	first.stop(t)
	close(f.tools.release)
	time.Sleep(2500 * time.Millisecond)

	f.start(state, toml)
	msg := f.waitMessages(1)[0]
	if !strings.Contains(msg.Content, "mention: block failed: result lost") || !strings.Contains(msg.Content, "not run again") {
		t.Fatalf("unexpected message:\n%s", msg.Content)
	}
	if n := f.tools.blocks(); n != 1 {
		t.Fatalf("block ran %d times, want 1", n)
	}
}

func waitStarted(t *testing.T, f *fixture) {
	t.Helper()
	select {
	case <-f.tools.started:
	case <-time.After(15 * time.Second):
		t.Fatal("the tool was never called")
	}
}

// Killed after journaling the request, before sending it: the next runner
// sends the very same request, and the tool runs once.
func TestKilledBeforeSending(t *testing.T) {
	testKilledAt(t, "publish")
}

// Killed after the relay accepted the request, before the journal knew:
// the next runner sends the same request again, which the relay drops as
// a duplicate, and collects the result of the first one.
func TestKilledAfterSending(t *testing.T) {
	testKilledAt(t, "published")
}

func testKilledAt(t *testing.T, stage string) {
	f := newFixture(t, nil)
	state := t.TempDir()
	first := f.startHooked(state, mentionTOML, stage)
	f.mention(`echo {"text":"once"}`, nostr.Now())
	select {
	case <-first.done:
		first.stopped = true
	case <-time.After(15 * time.Second):
		t.Fatal("the runner did not die at " + stage)
	}
	time.Sleep(300 * time.Millisecond) // a result of a sent call reaches the mailbox

	f.start(state, mentionTOML)
	msg := f.waitMessages(1)[0]
	if !strings.Contains(msg.Content, "echo: once") {
		t.Fatalf("unexpected reply:\n%s", msg.Content)
	}
	f.mention(`echo {"text":"next"}`, nostr.Now())
	f.waitMessages(2)
	if got := f.tools.echoes(); strings.Join(got, ",") != "once,next" {
		t.Fatalf("echo ran with %q, want [once next]", got)
	}
}
