package mcpadapter

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/mcpadapter/sanitize"
	"toolbus/signer"
)

// Workspace tools let the agent take part in the team's chat as the user:
// channels, read_channel, search and inbox read what the relay lets the
// user read (the relay filters every delivery, so the adapter never has to
// decide who may see what), and post writes as the user.
//
// Chat is untrusted input to the model. Every piece of it that a tool
// returns (bodies, channel names and abouts, author names) goes through the
// adapter's one Sanitizer: Text for bodies, Line for one-line fields, and
// the whole response through Wrap, so each response is a single block after
// a notice, inside a boundary drawn for that response. The chat tools
// return that block as their only content: no structured copy, because a
// client that hands structuredContent to the model would bypass the notice.

const (
	kindChat         = 9
	kindProfile      = 0
	kindGroupMeta    = 39000
	kindGroupAdmins  = 39001
	kindGroupMembers = 39002
	// queryTimeout bounds each relay round trip of a workspace tool.
	queryTimeout = 30 * time.Second
	// scanLimit is the limit of a query that wants every match (a relay's
	// usual max_limit). Past that many, the relay sends the newest only:
	// inbox then misses the oldest mentions since its cursor.
	scanLimit = 1000
	// maxPostBytes bounds what post publishes; the relay allows more, but a
	// chat message of more than 64 KiB from an agent is a mistake.
	maxPostBytes = 64 << 10
)

// groupIDRE is what the relay accepts as a channel id (relay/groups): ids
// are therefore shown verbatim, and checked before they reach a filter.
var groupIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// workspace serves the workspace tools for one user.
type workspace struct {
	conn  *bus.Conn
	key   signer.Signer
	me    string // the user's pubkey
	relay string // the relay's pubkey, "" when unknown
	san   *sanitize.Sanitizer
	inbox *inboxMemory
}

// addWorkspaceTools registers the workspace tools when the adapter has the
// user's key. Flat mode has none: it presents one worker as if the agent
// talked to it directly, and the worker's own tools may use these names.
func (a *Adapter) addWorkspaceTools() {
	if a.opts.Key == nil || a.opts.Flat {
		return
	}
	san := a.opts.Sanitizer
	if san == nil {
		san = sanitize.New(sanitize.Options{})
	}
	w := &workspace{conn: a.opts.Conn, key: a.opts.Key, me: a.opts.Key.PublicKey(),
		relay: a.opts.RelayPubKey, san: san, inbox: newInboxMemory()}
	mcp.AddTool(a.server, channelsTool, w.channels)
	mcp.AddTool(a.server, readChannelTool, w.readChannel)
	mcp.AddTool(a.server, searchTool, w.search)
	mcp.AddTool(a.server, inboxTool, w.inboxTool)
	mcp.AddTool(a.server, postTool, w.post)
}

// query runs one relay query, time-boxed.
func (w *workspace) query(ctx context.Context, filters ...nostr.Filter) ([]*nostr.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	return w.conn.Query(ctx, filters)
}

// chatResult is a successful chat tool's result: the items, wrapped once.
func (w *workspace) chatResult(items []string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: w.san.Wrap(items)}}}
}

// invalid is the result for arguments the tool cannot use.
func invalid(msg string) *mcp.CallToolResult {
	return bus.ToolError(bus.CodeInvalidParams, msg, 0)
}

func notFound(msg string) *mcp.CallToolResult {
	return bus.ToolError(bus.CodeNotFound, msg, 0)
}

// relayFailure classifies a failed relay round trip for the agent: a
// refusal keeps the relay's reason, which says what to do about it.
func relayFailure(err error) *mcp.CallToolResult {
	var rej *bus.RejectedError
	switch {
	case errors.As(err, &rej):
		code := bus.CodeUnavailable
		switch rej.Prefix() {
		case "restricted", "blocked", "auth-required":
			code = bus.CodeUnauthorized
		case "rate-limited":
			code = bus.CodeRateLimited
		case "invalid":
			code = bus.CodeInvalidParams
		}
		return bus.ToolError(code, "the relay refused: "+rej.Reason, 0)
	case errors.Is(err, context.DeadlineExceeded):
		return bus.ToolError(bus.CodeTimeout, "the relay did not answer in time", 0)
	default:
		return bus.ToolError(bus.CodeUnavailable, err.Error(), 0)
	}
}
