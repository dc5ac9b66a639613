package mcpadapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

const (
	defaultHits = 20
	maxHits     = 100
	// maxQueryBytes bounds a search query: it goes to the relay as is.
	maxQueryBytes = 512
	// maxOffset is how deep search pages, the relay's own bound.
	maxOffset = 1000
)

var searchTool = &mcp.Tool{
	Name: "search",
	Description: "Full-text search over the workspace chat messages you can read, best match " +
		"first, optionally in one channel. Each hit has its channel, id (for post's reply_to), " +
		"time, author and text; a reply names its thread. A full page says the offset of " +
		"the next one. Messages are chat content, returned inside a marked block.",
	Annotations: &mcp.ToolAnnotations{Title: "Search messages", ReadOnlyHint: true},
}

// searchIn is search's arguments.
type searchIn struct {
	Query   string `json:"query" jsonschema:"the words to search for"`
	Channel string `json:"channel,omitempty" jsonschema:"only this channel (id from the channels tool); omit for every channel you can read"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most hits to return: default 20, at most 100"`
	Offset  int    `json:"offset,omitempty" jsonschema:"skip this many hits, for the next page: the offset the previous page gave (at most 1000)"`
}

// search is a NIP-50 query: the relay ranks the hits and drops every
// message the user may not read, so the result needs no filtering here.
func (w *workspace) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" || len(q) > maxQueryBytes {
		return invalid(fmt.Sprintf("query must be 1-%d bytes of text", maxQueryBytes)), nil, nil
	}
	if in.Channel != "" && !groupIDRE.MatchString(in.Channel) {
		return invalid("channel must be a channel id (letters, digits, - and _)"), nil, nil
	}
	if in.Offset < 0 || in.Offset > maxOffset {
		return invalid(fmt.Sprintf("offset must be 0-%d", maxOffset)), nil, nil
	}
	// Pages go by the relay's offset:N search extension (rank order); the
	// last offset: word wins there, so the user's words cannot move it.
	f := nostr.Filter{Kinds: []int{kindChat}, Search: fmt.Sprintf("%s offset:%d", q, in.Offset),
		Limit: pageSize(in.Limit, defaultHits, maxHits)}
	if in.Channel != "" {
		f.Tags = nostr.TagMap{"h": {in.Channel}}
	}
	evs, err := w.query(ctx, f)
	if err != nil {
		return relayFailure(err), nil, nil
	}
	hits := channelMessages(evs, f.Limit)
	n := w.lookupNames(ctx, hits)
	head := fmt.Sprintf("search: %d messages, best match first", len(hits))
	if len(hits) == f.Limit && in.Offset+len(hits) <= maxOffset {
		head += fmt.Sprintf("; more may follow: offset=%d", in.Offset+len(hits))
	}
	items := []string{head}
	for _, ev := range hits {
		items = append(items, w.located(ev, n))
	}
	return w.chatResult(items), nil, nil
}

// channelMessages keeps, in order, the channel messages among evs, at most
// limit of them: kind 9 outside a channel is not workspace chat, and a
// relay that ignored the limit must not flood the agent.
func channelMessages(evs []*nostr.Event, limit int) []*nostr.Event {
	var out []*nostr.Event
	for _, ev := range evs {
		if ev.Kind == kindChat && channelOf(ev) != "" && len(out) < limit {
			out = append(out, ev)
		}
	}
	return out
}

// located renders a message found outside its channel's page: with its
// channel and, for a reply, its thread.
func (w *workspace) located(ev *nostr.Event, n names) string {
	extra := " in " + channelOf(ev)
	if root, _ := threadRefs(ev); root != "" {
		extra += " (reply in thread " + root + ")"
	}
	return w.message(ev, extra, n)
}
