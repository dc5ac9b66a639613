package triggers_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
)

// The connection to the relay dies as the call is written: the relay never
// sees it. The runner sends the same request again after a backoff; the
// tool runs once and its result is posted.
func TestRetrySendWhenConnectionDrops(t *testing.T) {
	testSendRetried(t, cutBefore)
}

// The relay accepts the call but its OK is lost with the connection (the
// worker already has the call). The runner sends the same request again,
// which the relay drops as a duplicate: the tool runs once, and the result
// is collected and posted.
func TestRetrySendWhenAnswerLost(t *testing.T) {
	testSendRetried(t, cutAfter)
}

func testSendRetried(t *testing.T, cut cutMode) {
	f := newFixtureWith(t, fixtureOptions{proxy: true})
	var once sync.Once
	f.proxy.mark(true) // the runner's first connection
	f.startWith(t.TempDir(), mentionTOML, func(_ *runner, stage string) {
		if stage == "publish" {
			once.Do(func() { f.proxy.arm(cut) })
		}
	})
	f.proxy.mark(false)

	f.mention(`echo {"text":"once"}`, nostr.Now())
	msg := f.waitMessages(1)[0]
	if !strings.Contains(msg.Content, "mention: echo succeeded") || !strings.Contains(msg.Content, "echo: once") {
		t.Fatalf("unexpected reply:\n%s", msg.Content)
	}
	if n := f.proxy.cutCount(); n != 1 {
		t.Fatalf("the call's connection was cut %d times, want 1", n)
	}
	if n := f.logs.count("could not send the call; retrying"); n != 1 {
		t.Fatalf("the runner retried sending %d times, want 1", n)
	}
	// Events are handled in order: once "next" is answered, a second run
	// of "once" would have happened.
	f.mention(`echo {"text":"next"}`, nostr.Now()+1)
	f.waitMessages(2)
	if got := f.tools.echoes(); strings.Join(got, ",") != "once,next" {
		t.Fatalf("echo ran with %q, want [once next]", got)
	}
}

// A worker over its caller's quota refuses the call before running it: the
// runner calls again after a backoff, and the call runs once.
func TestRetryWhenWorkerRateLimits(t *testing.T) {
	f := newFixtureWith(t, fixtureOptions{worker: func(o *bus.ServerOptions) {
		o.QuotaPerSecond, o.QuotaBurst = 0.5, 1 // one call, then one per 2 s
	}})
	f.start(t.TempDir(), mentionTOML)
	now := nostr.Now()
	f.mention(`echo {"text":"a"}`, now)
	f.mention(`echo {"text":"b"}`, now+1)
	msgs := f.waitMessages(2)
	for _, want := range []string{"echo: a", "echo: b"} {
		if !strings.Contains(contents(msgs), want) {
			t.Fatalf("no reply with %q:%s", want, contents(msgs))
		}
	}
	if strings.Contains(contents(msgs), "failed") {
		t.Fatalf("a call failed:%s", contents(msgs))
	}
	if got := f.tools.echoes(); strings.Join(got, ",") != "a,b" {
		t.Fatalf("echo ran with %q, want [a b]", got)
	}
	if f.logs.count("worker refused the call before running it; retrying") == 0 {
		t.Fatal("the worker never refused a call: the test did not exercise the retry")
	}
}

// A tool that fails (isError) ran: it is not called again, and the
// failure is posted.
func TestToolErrorNotRetried(t *testing.T) {
	f := newFixture(t, nil)
	f.start(t.TempDir(), strings.Replace(mentionTOML, `["echo", "block"]`, `["echo", "fail"]`, 1))
	now := nostr.Now()
	f.mention(`fail {"text":"x"}`, now)
	f.mention(`echo {"text":"after"}`, now+1)
	msgs := f.waitUntil("reply to the echo", func(msgs []*nostr.Event) bool {
		return strings.Contains(contents(msgs), "echo: after")
	})
	if len(msgs) != 2 {
		t.Fatalf("got %d messages, want 2:%s", len(msgs), contents(msgs))
	}
	fail := msgs[0]
	if strings.Contains(fail.Content, "echo: after") {
		fail = msgs[1]
	}
	if !strings.HasPrefix(fail.Content, "mention: fail failed") || !strings.Contains(fail.Content, "broken: x") {
		t.Fatalf("unexpected failure message:\n%s", fail.Content)
	}
	var doc struct {
		OK     bool `json:"ok"`
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(f.record(fail).Content), &doc); err != nil || doc.OK || !doc.Result.IsError {
		t.Fatalf("result record: %v %+v", err, doc)
	}
	if n := f.tools.fails(); n != 1 {
		t.Fatalf("the failing tool ran %d times, want 1", n)
	}
}
