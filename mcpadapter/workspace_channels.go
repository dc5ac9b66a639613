package mcpadapter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

var channelsTool = &mcp.Tool{
	Name: "channels",
	Description: "List the workspace chat channels you can read: id, name, about, " +
		"private/public (private: only members read it), closed/open (closed: joining " +
		"needs an invitation or an admin's approval), member count and your role (owner, admin, member, or none: " +
		"you can read but not post). Pass an id to read_channel, search or post. " +
		"Names and abouts are chat content, returned inside a marked block.",
	Annotations: &mcp.ToolAnnotations{Title: "List channels", ReadOnlyHint: true},
}

// channelsIn takes no arguments.
type channelsIn struct{}

// channelInfo is one channel as its relay-signed events describe it.
type channelInfo struct {
	id, name, about string
	private, closed bool
	members         int
	member          bool   // the user is in 39002
	role            string // the user's role in 39001 (owner, admin), if any
	// at holds the created_at of the newest event of each kind used: a
	// relay may hold an older copy of a replaceable event too.
	at map[int]nostr.Timestamp
}

func (w *workspace) channels(ctx context.Context, _ *mcp.CallToolRequest, _ channelsIn) (*mcp.CallToolResult, any, error) {
	evs, err := w.query(ctx, w.metaFilter(kindGroupMeta), w.metaFilter(kindGroupAdmins), w.metaFilter(kindGroupMembers))
	if err != nil {
		return relayFailure(err), nil, nil
	}
	byID := map[string]*channelInfo{}
	for _, ev := range evs {
		w.applyMeta(byID, ev)
	}
	var list []*channelInfo
	for _, c := range byID {
		if _, ok := c.at[kindGroupMeta]; ok { // 39001/39002 alone name no channel
			list = append(list, c)
		}
	}
	slices.SortFunc(list, func(a, b *channelInfo) int { return strings.Compare(a.id, b.id) })
	items := []string{fmt.Sprintf("channels you can read: %d", len(list))}
	for _, c := range list {
		items = append(items, w.renderChannel(c))
	}
	return w.chatResult(items), nil, nil
}

// metaFilter asks for one relay-signed metadata kind of every channel the
// relay shows the user. With the relay's key known, only its events count:
// anyone else's 39000 would be a forgery.
func (w *workspace) metaFilter(kind int) nostr.Filter {
	f := nostr.Filter{Kinds: []int{kind}, Limit: scanLimit}
	if w.relay != "" {
		f.Authors = []string{w.relay}
	}
	return f
}

// applyMeta folds one 39000/39001/39002 event into its channel, keeping
// the newest of each kind.
func (w *workspace) applyMeta(byID map[string]*channelInfo, ev *nostr.Event) {
	d := ev.Tags.GetD()
	if !groupIDRE.MatchString(d) || (w.relay != "" && ev.PubKey != w.relay) {
		return
	}
	c := byID[d]
	if c == nil {
		c = &channelInfo{id: d, at: map[int]nostr.Timestamp{}}
		byID[d] = c
	}
	if prev, ok := c.at[ev.Kind]; ok && prev >= ev.CreatedAt {
		return
	}
	c.at[ev.Kind] = ev.CreatedAt
	switch ev.Kind {
	case kindGroupMeta:
		c.name, c.about = tagValue(ev, "name"), tagValue(ev, "about")
		c.private, c.closed = hasFlag(ev, "private"), hasFlag(ev, "closed")
	case kindGroupAdmins:
		c.role = ""
		if t := ev.Tags.FindWithValue("p", w.me); len(t) >= 3 {
			c.role = t[2]
		}
	case kindGroupMembers:
		c.members, c.member = 0, false
		for t := range ev.Tags.FindAll("p") {
			c.members++
			c.member = c.member || t[1] == w.me
		}
	}
}

// renderChannel describes one channel; name and about are chat content.
func (w *workspace) renderChannel(c *channelInfo) string {
	role := c.role
	switch {
	case role != "":
	case c.member:
		role = "member"
	default:
		role = "none"
	}
	s := "channel " + c.id + "\n  name: " + w.san.Line(c.name)
	if about := w.san.Line(c.about); about != "" {
		s += "\n  about: " + about
	}
	return s + fmt.Sprintf("\n  %s, %s; members: %d; your role: %s",
		pick(c.private, "private", "public"), pick(c.closed, "closed", "open"), c.members, role)
}

func tagValue(ev *nostr.Event, name string) string {
	if t := ev.Tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}

// hasFlag reports a value-less tag such as ["private"].
func hasFlag(ev *nostr.Event, name string) bool {
	return slices.ContainsFunc(ev.Tags, func(t nostr.Tag) bool { return len(t) >= 1 && t[0] == name })
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
