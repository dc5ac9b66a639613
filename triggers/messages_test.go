package triggers_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// messages returns the trigger key's kind-9 messages in the channel.
func (f *fixture) messages() []*nostr.Event {
	var mu sync.Mutex
	var out []*nostr.Event
	sub, err := f.member.Subscribe(ctx(f.t), func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{9}, Authors: []string{f.trig.PublicKey()}, Tags: nostr.TagMap{"h": {f.channel}}}}
	}, func(ev *nostr.Event) { mu.Lock(); out = append(out, ev); mu.Unlock() }, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	<-sub.EOSE()
	sub.Close()
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return append([]*nostr.Event(nil), out...)
}

// waitMessages waits until the trigger posted n messages and returns them.
func (f *fixture) waitMessages(n int) []*nostr.Event {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msgs := f.messages()
		if len(msgs) >= n || time.Now().After(deadline) {
			if len(msgs) != n {
				f.t.Fatalf("got %d trigger messages, want %d: %s", len(msgs), n, contents(msgs))
			}
			return msgs
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func contents(evs []*nostr.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "\n--- %s\n%s", ev.ID, ev.Content)
	}
	return b.String()
}

// hasTag reports whether ev has a tag starting with want.
func hasTag(ev *nostr.Event, want ...string) bool {
	for _, tag := range ev.Tags {
		if len(tag) >= len(want) && slices.Equal(tag[:len(want)], want) {
			return true
		}
	}
	return false
}

// record returns the result record a message references (its second e
// tag, marked mention).
func (f *fixture) record(msg *nostr.Event) *nostr.Event {
	f.t.Helper()
	var ids []string
	for _, tag := range msg.Tags {
		if len(tag) >= 2 && tag[0] == "e" {
			ids = append(ids, tag[1])
		}
	}
	var mu sync.Mutex
	var got *nostr.Event
	sub, err := f.member.Subscribe(ctx(f.t), func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{30078}, IDs: ids}}
	}, func(ev *nostr.Event) {
		// The relay's store answers an ids filter without checking kinds.
		if ev.Kind == 30078 {
			mu.Lock()
			got = ev
			mu.Unlock()
		}
	}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	<-sub.EOSE()
	sub.Close()
	mu.Lock()
	defer mu.Unlock()
	if got == nil {
		f.t.Fatalf("no result record among %v", ids)
	}
	return got
}

// waitUntil waits until done holds for the trigger's messages and returns
// them.
func (f *fixture) waitUntil(what string, done func([]*nostr.Event) bool) []*nostr.Event {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msgs := f.messages()
		if done(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s among the trigger's messages: %s", what, contents(msgs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// headlines returns the first lines of messages, sorted.
func headlines(msgs []*nostr.Event) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i], _, _ = strings.Cut(m.Content, "\n")
	}
	sort.Strings(out)
	return out
}
