package mcpadapter

import (
	"slices"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// thread is the messages of one page that belong to one thread.
type thread struct {
	root    string       // the id of the thread's first message
	head    *nostr.Event // that message, nil when it is older than the page
	replies []*nostr.Event
}

// buildThreads groups a newest-first page into threads, ordered by their
// newest message on the page, with replies oldest first (reading order).
// A reply whose thread started before the page gets a thread of its own
// without a head, so it is never shown detached from its context.
func buildThreads(page []*nostr.Event) []*thread {
	byRoot := map[string]*thread{}
	var out []*thread
	for _, ev := range page {
		root, _ := threadRefs(ev)
		key := root
		if key == "" {
			key = ev.ID
		}
		th := byRoot[key]
		if th == nil {
			th = &thread{root: key}
			byRoot[key] = th
			out = append(out, th)
		}
		if ev.ID == key {
			th.head = ev
		} else {
			th.replies = append(th.replies, ev)
		}
	}
	for _, th := range out {
		slices.Reverse(th.replies)
	}
	return out
}

// renderThread shows the head at top level and the replies indented. A
// reply to another reply names its parent.
func (w *workspace) renderThread(th *thread, n names) string {
	var b strings.Builder
	if th.head != nil {
		b.WriteString(w.message(th.head, "", n))
	} else {
		b.WriteString("thread " + th.root + " (its first message is older than this page)")
	}
	for _, r := range th.replies {
		extra := ""
		if _, parent := threadRefs(r); parent != th.root {
			extra = " to " + parent
		}
		b.WriteString("\n" + w.header("  ", "reply", r, extra, n) + "\n" + w.body("  ", r))
	}
	return b.String()
}
