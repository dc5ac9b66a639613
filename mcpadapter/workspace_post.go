package mcpadapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"toolbus/bus"
	"toolbus/signer"
)

// maxMentions bounds the people one post can notify.
const maxMentions = 50

var postTool = &mcp.Tool{
	Name: "post",
	Description: "Post a message to a workspace channel as the user, optionally as a reply in a " +
		"thread (reply_to: the id of any message of the thread; the reply joins that thread " +
		"and notifies its author) and mentioning people (mentions: their npub or hex keys; " +
		"they see it in their inbox). Content is plain text, at most 64 KiB. Returns the " +
		"new message's id. You must be a member of the channel.",
	Annotations: &mcp.ToolAnnotations{Title: "Post a message", DestructiveHint: new(false)},
}

// postIn is post's arguments.
type postIn struct {
	Channel  string   `json:"channel" jsonschema:"channel id, as listed by the channels tool"`
	Content  string   `json:"content" jsonschema:"the message text"`
	ReplyTo  string   `json:"reply_to,omitempty" jsonschema:"id of the message to reply to (hex or note1...), in the same channel"`
	Mentions []string `json:"mentions,omitempty" jsonschema:"people to mention: npub1... or hex public keys"`
}

// post publishes a kind 9 signed with the user's key. The content is the
// agent's own text, so it is not sanitised; it is only bounded.
func (w *workspace) post(ctx context.Context, _ *mcp.CallToolRequest, in postIn) (*mcp.CallToolResult, any, error) {
	if !groupIDRE.MatchString(in.Channel) {
		return invalid("channel must be a channel id (letters, digits, - and _)"), nil, nil
	}
	if strings.TrimSpace(in.Content) == "" || len(in.Content) > maxPostBytes {
		return invalid(fmt.Sprintf("content must be 1-%d bytes of text", maxPostBytes)), nil, nil
	}
	tags := nostr.Tags{{"h", in.Channel}}
	if in.ReplyTo != "" {
		thread, res := w.replyTags(ctx, in.Channel, in.ReplyTo)
		if res != nil {
			return res, nil, nil
		}
		tags = append(tags, thread...)
	}
	people, res := mentionTags(in.Mentions)
	if res != nil {
		return res, nil, nil
	}
	for _, t := range people {
		tags = tags.AppendUnique(t)
	}
	ev := &nostr.Event{Kind: kindChat, CreatedAt: nostr.Now(), Tags: tags, Content: in.Content}
	if err := w.key.SignEvent(ctx, ev); err != nil {
		return bus.ToolError(bus.CodeInternal, "could not sign the message: "+err.Error(), 0), nil, nil
	}
	pctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if err := w.conn.Publish(pctx, ev); err != nil {
		return relayFailure(err), nil, nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "posted message " + ev.ID + " to channel " + in.Channel}},
		StructuredContent: map[string]string{"id": ev.ID, "channel": in.Channel},
	}, nil, nil
}

// replyTags fetches the message replied to and returns the NIP-10 tags
// that put the reply in its thread: the root marked "root" and, when the
// parent is itself a reply, the parent marked "reply" (a reply to the
// root carries only the root, as NIP-10 says); plus a p tag for the
// parent's author, so the reply reaches their inbox.
func (w *workspace) replyTags(ctx context.Context, channel, ref string) (nostr.Tags, *mcp.CallToolResult) {
	id, ok := eventID(ref)
	if !ok {
		return nil, invalid("reply_to must be a message id (64 hex digits, or note1...)")
	}
	evs, err := w.query(ctx, nostr.Filter{IDs: []string{id}})
	if err != nil {
		return nil, relayFailure(err)
	}
	if len(evs) == 0 {
		return nil, notFound("no message " + id + " that you can read")
	}
	parent := evs[0]
	if parent.Kind != kindChat || channelOf(parent) != channel {
		return nil, invalid("reply_to is not a message of channel " + channel)
	}
	root, _ := threadRefs(parent)
	if root == "" {
		root = parent.ID
	}
	tags := nostr.Tags{{"e", root, "", "root"}}
	if parent.ID != root {
		tags = append(tags, nostr.Tag{"e", parent.ID, "", "reply"})
	}
	if parent.PubKey != w.me {
		tags = append(tags, nostr.Tag{"p", parent.PubKey})
	}
	return tags, nil
}

// eventID accepts a hex id or a note1 reference.
func eventID(ref string) (string, bool) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "nostr:")
	if nostr.IsValid32ByteHex(ref) {
		return ref, true
	}
	if prefix, v, err := nip19.Decode(ref); err == nil && prefix == "note" {
		id, ok := v.(string)
		return id, ok && nostr.IsValid32ByteHex(id)
	}
	return "", false
}

// mentionTags turns npub or hex keys into p tags.
func mentionTags(keys []string) (nostr.Tags, *mcp.CallToolResult) {
	if len(keys) > maxMentions {
		return nil, invalid(fmt.Sprintf("at most %d mentions", maxMentions))
	}
	var tags nostr.Tags
	for _, k := range keys {
		pk, err := signer.ParsePubKey(strings.TrimPrefix(strings.TrimSpace(k), "nostr:"))
		if err != nil {
			return nil, invalid("mention " + k + " is not an npub or hex public key")
		}
		tags = append(tags, nostr.Tag{"p", pk})
	}
	return tags, nil
}
