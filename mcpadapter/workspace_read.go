package mcpadapter

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

const (
	defaultPage = 50
	maxPage     = 200
)

var readChannelTool = &mcp.Tool{
	Name: "read_channel",
	Description: "Read a page of a workspace channel's messages, newest first, grouped into threads: " +
		"each thread is its first message with the replies on this page nested under it " +
		"(oldest reply first); threads are ordered by their newest message. Each message has " +
		"its id (for post's reply_to), time, author and text. For older messages pass the " +
		"returned next_before as before. Messages are chat content, returned inside a marked block.",
	Annotations: &mcp.ToolAnnotations{Title: "Read a channel", ReadOnlyHint: true},
}

// readChannelIn is read_channel's arguments.
type readChannelIn struct {
	Channel string `json:"channel" jsonschema:"channel id, as listed by the channels tool"`
	Before  int64  `json:"before,omitempty" jsonschema:"only messages older than this (unix seconds): the next_before of the previous page; omit for the newest"`
	Limit   int    `json:"limit,omitempty" jsonschema:"messages per page: default 50, at most 200"`
}

func (w *workspace) readChannel(ctx context.Context, _ *mcp.CallToolRequest, in readChannelIn) (*mcp.CallToolResult, any, error) {
	if !groupIDRE.MatchString(in.Channel) {
		return invalid("channel must be a channel id (letters, digits, - and _)"), nil, nil
	}
	limit := pageSize(in.Limit, defaultPage, maxPage)
	page, next, known, err := w.fetchPage(ctx, in.Channel, in.Before, limit)
	if err != nil {
		return relayFailure(err), nil, nil
	}
	if !known {
		// The relay shows a channel's metadata to whoever may read it, so
		// this also covers private channels the user is not in.
		return notFound("no channel " + in.Channel + " that you can read"), nil, nil
	}
	n := w.lookupNames(ctx, page)
	items := []string{fmt.Sprintf("channel %s: %d messages, threads newest first", in.Channel, len(page))}
	for _, th := range buildThreads(page) {
		items = append(items, w.renderThread(th, n))
	}
	items = append(items, nextBefore(next))
	return w.chatResult(items), nil, nil
}

// fetchPage gets one page of channel (newest first) with its next_before,
// and whether the user can see the channel at all, in one round trip.
func (w *workspace) fetchPage(ctx context.Context, channel string, before int64, limit int) (page []*nostr.Event, next int64, known bool, err error) {
	msgs := nostr.Filter{Kinds: []int{kindChat}, Tags: nostr.TagMap{"h": {channel}}, Limit: limit}
	if before > 0 {
		until := nostr.Timestamp(before - 1) // before is exclusive, until inclusive
		msgs.Until = &until
	}
	meta := w.metaFilter(kindGroupMeta)
	meta.Tags, meta.Limit = nostr.TagMap{"d": {channel}}, 1
	evs, err := w.query(ctx, msgs, meta)
	if err != nil {
		return nil, 0, false, err
	}
	page, known = splitMeta(evs)
	page, next, single := trimPage(newestFirst(page), limit)
	if single {
		page, err = w.wholeSecond(ctx, channel, next)
	}
	return newestFirst(page), next, known, err
}

// splitMeta separates chat messages from the channel's 39000 and reports
// whether there was one.
func splitMeta(evs []*nostr.Event) (msgs []*nostr.Event, known bool) {
	for _, ev := range evs {
		switch ev.Kind {
		case kindChat:
			msgs = append(msgs, ev)
		case kindGroupMeta:
			known = true
		}
	}
	return msgs, known
}

// newestFirst sorts by created_at, newest first, then by id, so a page
// reads the same however the relay ordered it.
func newestFirst(evs []*nostr.Event) []*nostr.Event {
	slices.SortFunc(evs, func(a, b *nostr.Event) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return evs
}

// trimPage makes paging by second lossless. A full page may have cut the
// oldest second short, and `until` cannot resume inside a second, so the
// oldest second's messages move to the next page (next = that second + 1,
// an exclusive bound). next is 0 when the page is not full: there is
// nothing older. When the whole page shares one second, single reports
// it: the caller then fetches that whole second.
func trimPage(page []*nostr.Event, limit int) (kept []*nostr.Event, next int64, single bool) {
	if len(page) < limit || len(page) == 0 {
		return page, 0, false
	}
	oldest := page[len(page)-1].CreatedAt
	keep := len(page)
	for keep > 0 && page[keep-1].CreatedAt == oldest {
		keep--
	}
	if keep == 0 {
		return page, int64(oldest), true
	}
	return page[:keep], int64(oldest) + 1, false
}

// wholeSecond returns every message of channel sent in second at (up to
// what one relay query returns), for a page that a burst of more than
// limit messages in one second filled: returning more than limit beats
// skipping the rest of the burst.
func (w *workspace) wholeSecond(ctx context.Context, channel string, at int64) ([]*nostr.Event, error) {
	ts := nostr.Timestamp(at)
	return w.query(ctx, nostr.Filter{Kinds: []int{kindChat}, Tags: nostr.TagMap{"h": {channel}},
		Since: &ts, Until: &ts, Limit: scanLimit})
}

func nextBefore(next int64) string {
	if next == 0 {
		return "next_before: none (no older messages)"
	}
	return fmt.Sprintf("next_before: %d (pass as before for older messages)", next)
}

// pageSize applies a default and a maximum to a requested page size.
func pageSize(asked, def, most int) int {
	if asked <= 0 {
		return def
	}
	return min(asked, most)
}
