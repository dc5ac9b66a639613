package mcpadapter

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// ev is a message with a made-up id, for the pure functions.
func ev(id string, at nostr.Timestamp, tags ...nostr.Tag) *nostr.Event {
	return &nostr.Event{ID: strings.Repeat(id, 64/len(id)), CreatedAt: at, Tags: tags}
}

func ids(evs []*nostr.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.ID[:1])
	}
	return out
}

// A full page gives its oldest second to the next page; a page that is
// one second is kept whole; a short page is the last.
func TestTrimPage(t *testing.T) {
	page := []*nostr.Event{ev("a", 30), ev("b", 20), ev("c", 10), ev("d", 10)}
	kept, next, single := trimPage(page, 4)
	if !slices.Equal(ids(kept), []string{"a", "b"}) || next != 11 || single {
		t.Errorf("full page: %v next %d single %v", ids(kept), next, single)
	}
	if _, next, single = trimPage(page[2:], 2); next != 10 || !single {
		t.Errorf("one-second page: next %d single %v", next, single)
	}
	if kept, next, _ = trimPage(page, 5); len(kept) != 4 || next != 0 {
		t.Errorf("short page: %d next %d", len(kept), next)
	}
}

// Replies nest under their root in reading order; a reply whose root is
// not on the page gets a headless thread.
func TestBuildThreads(t *testing.T) {
	root := ev("1", 10)
	page := []*nostr.Event{
		ev("4", 40, nostr.Tag{"e", root.ID, "", "root"}, nostr.Tag{"e", ev("2", 0).ID, "", "reply"}),
		ev("3", 30, nostr.Tag{"e", ev("9", 0).ID, "", "root"}),
		ev("2", 20, nostr.Tag{"e", root.ID, "", "root"}),
		root,
	}
	threads := buildThreads(page)
	if len(threads) != 2 {
		t.Fatalf("%d threads", len(threads))
	}
	if th := threads[0]; th.head != root || !slices.Equal(ids(th.replies), []string{"2", "4"}) {
		t.Errorf("first thread: head %v replies %v", th.head, ids(th.replies))
	}
	if th := threads[1]; th.head != nil || th.root != ev("9", 0).ID {
		t.Errorf("headless thread: %+v", th)
	}
	if r, p := threadRefs(page[0]); r != root.ID || p != ev("2", 0).ID {
		t.Errorf("refs %s %s", r, p)
	}
}

// The inbox memory leaves out what it returned at a cursor, and nothing
// else, and forgets the oldest cursors.
func TestInboxMemory(t *testing.T) {
	m := newInboxMemory()
	if c := m.advance(5, nil); c != 5 {
		t.Errorf("empty response moved the cursor to %d", c)
	}
	c := m.advance(5, []*nostr.Event{ev("a", 7), ev("b", 9), ev("c", 9)})
	if c != 9 || !m.seen(9, ev("b", 0).ID) || !m.seen(9, ev("c", 0).ID) || m.seen(9, ev("a", 0).ID) {
		t.Errorf("cursor %d, memory %v", c, m.ids)
	}
	m.advance(9, []*nostr.Event{ev("d", 9)})
	if !m.seen(9, ev("b", 0).ID) || !m.seen(9, ev("d", 0).ID) {
		t.Error("a second response at the same cursor forgot the first")
	}
	for i := range inboxCursors + 1 {
		m.advance(0, []*nostr.Event{ev(fmt.Sprintf("%x", i%16), nostr.Timestamp(100+i))})
	}
	if len(m.ids) > inboxCursors || m.seen(9, ev("b", 0).ID) {
		t.Errorf("memory holds %d cursors", len(m.ids))
	}
}

var regexpNext = regexp.MustCompile(`next_before: (\d+)`)

// Paging through a channel over the relay loses nothing, even a burst of
// more messages in one second than a page holds.
func TestWorkspaceReadChannelPaging(t *testing.T) {
	f := newWSFixture(t)
	now := nostr.Now()
	want := map[string]bool{f.root.ID: true, f.reply.ID: true, f.mention.ID: true}
	for i := range 7 {
		at := now - 100 + nostr.Timestamp(i/3*10) // bursts of three in one second
		want[f.publishAt(t, at, 9, fmt.Sprintf("old %d", i), nostr.Tag{"h", "secret"}).ID] = true
	}
	cs := startWorkspace(t, f.r, f.user, nil)
	got := map[string]bool{}
	args := map[string]any{"channel": "secret", "limit": 2}
	for range 20 {
		page := callOK(t, cs, "read_channel", args)
		for id := range want {
			if strings.Contains(page, id) {
				got[id] = true
			}
		}
		m := regexpNext.FindStringSubmatch(page)
		if m == nil {
			break
		}
		args["before"], _ = strconv.Atoi(m[1])
	}
	if len(got) != len(want) {
		t.Fatalf("paging returned %d of %d messages", len(got), len(want))
	}
}
