package triggers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// slowTOML has n triggers on the channel's messages, each calling the slow
// tool, under a concurrency limit of limit.
func slowTOML(n, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "relay = %%[1]q\nstate_dir = %%[2]q\nconcurrency = %d\n", limit)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `
[[trigger]]
name = "t%d"
worker = %%[3]q
tool = "slow"
reply = "channel:%%[4]s"
timeout = "20s"
since = "1h"

[trigger.filter]
kinds = [9]
h = [%%[4]q]

[trigger.arguments]
trigger = "{{.Trigger}}"
text = "{{.Event.Content}}"
`, i)
	}
	return b.String()
}

// Four triggers with three events each and concurrency = 2: never more
// than two calls under way at once (and two do run together), each trigger
// one call at a time, its events in created_at order.
func TestConcurrencyLimit(t *testing.T) {
	const triggers, limit = 4, 2
	f := newFixture(t, nil)
	now := nostr.Now()
	// Stored before the runner starts, published out of order.
	for _, i := range []int{2, 3, 1} {
		ev := nostr.Event{Kind: 9, CreatedAt: now - 10 + nostr.Timestamp(i), Content: fmt.Sprintf("m%d", i),
			Tags: nostr.Tags{{"h", f.channel}}}
		if err := f.r.Member.SignEvent(ctx(t), &ev); err != nil {
			t.Fatal(err)
		}
		f.publishEvent(f.r.Member, &ev)
	}
	f.start(t.TempDir(), slowTOML(triggers, limit))
	msgs := f.waitMessages(triggers * 3)
	if strings.Contains(contents(msgs), "failed") {
		t.Fatalf("a call failed:%s", contents(msgs))
	}

	tt := f.tools
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.maxInflight != limit {
		t.Errorf("at most %d calls were under way at once, want %d (the limit)", tt.maxInflight, limit)
	}
	for i := 1; i <= triggers; i++ {
		name := fmt.Sprintf("t%d", i)
		if got := tt.maxPer[name]; got != 1 {
			t.Errorf("trigger %s had %d calls under way at once, want 1", name, got)
		}
		if got := strings.Join(tt.order[name], ","); got != "m1,m2,m3" {
			t.Errorf("trigger %s called in order %s, want m1,m2,m3", name, got)
		}
	}
}
