package mcpadapter

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

const (
	// inboxWindow is how far back inbox looks without a cursor.
	inboxWindow = 7 * 24 * time.Hour
	// maxInbox is the most mentions one call returns; the cursor resumes.
	maxInbox = 100
	// inboxCursors is how many issued cursors the adapter remembers.
	inboxCursors = 256
)

var inboxTool = &mcp.Tool{
	Name: "inbox",
	Description: "Messages that mention you (in channels you can read), oldest first, since a " +
		"cursor: omit since for the last 7 days, then pass the returned cursor as since to " +
		"get only what is new. The cursor is a unix second and includes that second, so no " +
		"message sent in it is lost; messages this adapter already returned at the cursor are " +
		"left out. Only after the adapter restarts can one reappear: its id tells. " +
		"Messages are chat content, returned inside a marked block.",
	Annotations: &mcp.ToolAnnotations{Title: "Mentions of you", ReadOnlyHint: true},
}

// inboxIn is inbox's arguments.
type inboxIn struct {
	Since int64 `json:"since,omitempty" jsonschema:"the cursor from the previous inbox call (unix seconds); omit for the last 7 days"`
}

func (w *workspace) inboxTool(ctx context.Context, _ *mcp.CallToolRequest, in inboxIn) (*mcp.CallToolResult, any, error) {
	since := nostr.Timestamp(in.Since)
	if in.Since <= 0 {
		since = nostr.Timestamp(time.Now().Add(-inboxWindow).Unix())
	}
	evs, err := w.query(ctx, nostr.Filter{Kinds: []int{kindChat}, Tags: nostr.TagMap{"p": {w.me}},
		Since: &since, Limit: scanLimit})
	if err != nil {
		return relayFailure(err), nil, nil
	}
	fresh, more := w.unseen(evs, since)
	cursor := w.inbox.advance(since, fresh)
	n := w.lookupNames(ctx, fresh)
	items := []string{fmt.Sprintf("mentions of you since %s: %d, oldest first", rfc3339(since), len(fresh))}
	for _, ev := range fresh {
		items = append(items, w.located(ev, n))
	}
	tail := fmt.Sprintf("cursor: %d (pass as since next time)", cursor)
	if more {
		tail += "; more mentions are waiting: call again with it"
	}
	return w.chatResult(append(items, tail)), nil, nil
}

// unseen keeps the mentions to return: channel messages by others, not
// already returned at the since second, oldest first, at most maxInbox.
func (w *workspace) unseen(evs []*nostr.Event, since nostr.Timestamp) (out []*nostr.Event, more bool) {
	for _, ev := range channelMessages(evs, len(evs)) {
		if ev.PubKey != w.me && ev.CreatedAt >= since && !(ev.CreatedAt == since && w.inbox.seen(since, ev.ID)) {
			out = append(out, ev)
		}
	}
	slices.SortFunc(out, func(a, b *nostr.Event) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	if len(out) > maxInbox {
		return out[:maxInbox], true
	}
	return out, false
}

// inboxMemory remembers, for each cursor inbox issued, the ids it returned
// in the cursor's second, so that the next call from that cursor can
// include the whole second (a message may arrive later in the same second)
// without repeating them.
type inboxMemory struct {
	mu    sync.Mutex
	ids   map[nostr.Timestamp]map[string]bool
	order []nostr.Timestamp // oldest first, for eviction
}

func newInboxMemory() *inboxMemory {
	return &inboxMemory{ids: map[nostr.Timestamp]map[string]bool{}}
}

// seen reports whether inbox already returned id at second ts.
func (m *inboxMemory) seen(ts nostr.Timestamp, id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ids[ts][id]
}

// advance records a response from since that returned fresh (oldest
// first) and returns its cursor: the newest second returned, or since if
// nothing was.
func (m *inboxMemory) advance(since nostr.Timestamp, fresh []*nostr.Event) nostr.Timestamp {
	if len(fresh) == 0 {
		return since
	}
	cursor := fresh[len(fresh)-1].CreatedAt
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := m.ids[cursor]
	if ids == nil {
		ids = map[string]bool{}
		m.ids[cursor] = ids
		m.order = append(m.order, cursor)
	}
	for _, ev := range fresh {
		if ev.CreatedAt == cursor {
			ids[ev.ID] = true
		}
	}
	if len(m.order) > inboxCursors {
		delete(m.ids, m.order[0])
		m.order = m.order[1:]
	}
	return cursor
}
