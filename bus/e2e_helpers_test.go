package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
	"toolbus/signer"
)

func newKey(t *testing.T) *signer.Local { return testutil.NewKey(t) }

func manage(t *testing.T, f *busFixture, method string, params ...any) (json.RawMessage, error) {
	return relay.Manage(testCtx(t), f.r.HTTPURL, f.r.Admin, method, params...)
}

// queryKinds reads the worker's stored events of kinds, as a member.
func queryKinds(t *testing.T, f *busFixture, kinds ...int) []*nostr.Event {
	c := dialConn(t, f.r.URL, f.r.Member, nil)
	defer c.Close()
	var log eventLog
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: kinds, Authors: []string{f.worker.PublicKey()}}}
	}
	sub, err := c.Subscribe(testCtx(t), filters, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "EOSE", sub.EOSE())
	sub.Close()
	log.mu.Lock()
	defer log.mu.Unlock()
	return append([]*nostr.Event(nil), log.evs...)
}

// tapped is one bus event the relay delivered to a caller: the kind it came
// in and the signed 25910 inside it (the event itself when plaintext).
type tapped struct {
	kind  int
	inner *nostr.Event
}

// replyTap watches, on a raw subscription of its own, what the relay
// delivers to key from worker: the wire as the caller sees it.
type replyTap struct {
	mu  sync.Mutex
	evs []tapped
}

func tapReplies(t *testing.T, url string, key *signer.Local, worker string) *replyTap {
	t.Helper()
	tap := &replyTap{}
	c := dialConn(t, url, key, nil) // authenticated: plaintext replies reach it
	since := nostr.Now() - 2
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{KindMessage, KindGiftWrap, KindEphemeralGiftWrap},
			Tags: nostr.TagMap{"p": {key.PublicKey()}}, Since: &since}}
	}
	sub, err := c.Subscribe(testCtx(t), filters, func(ev *nostr.Event) {
		inner, err := ev, error(nil)
		if IsWrapKind(ev.Kind) {
			if inner, err = Unwrap(context.Background(), key, ev); err != nil {
				return
			}
		}
		if inner.PubKey == worker {
			tap.mu.Lock()
			tap.evs = append(tap.evs, tapped{ev.Kind, inner})
			tap.mu.Unlock()
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "tap EOSE", sub.EOSE())
	return tap
}

// wait returns the first n events tapped, waiting for them.
func (tap *replyTap) wait(t *testing.T, n int) []tapped {
	t.Helper()
	var out []tapped
	waitFor(t, fmt.Sprintf("%d replies", n), func() bool {
		tap.mu.Lock()
		defer tap.mu.Unlock()
		out = append([]tapped(nil), tap.evs...)
		return len(out) >= n
	})
	return out[:n]
}

// replyTo waits for the reply to the request event id.
func (tap *replyTap) replyTo(t *testing.T, id string) tapped {
	t.Helper()
	var got tapped
	waitFor(t, "reply to "+id, func() bool {
		tap.mu.Lock()
		defer tap.mu.Unlock()
		for _, e := range tap.evs {
			if ReplyTo(e.inner) == id {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// rawCall is a signed tools/call of echo from key to worker, built by hand
// so a test can deliver the very same event more than once.
func rawCall(t *testing.T, key *signer.Local, worker, text string) *nostr.Event {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	content, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": json.RawMessage(params)})
	ev := NewMessage(content, worker, "")
	if err := key.SignEvent(testCtx(t), &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}
