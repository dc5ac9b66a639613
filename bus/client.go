package bus

import (
	"context"
	"encoding/json"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// WrapMode says how a Client sends its calls.
type WrapMode int

const (
	// WrapGift sends each call gift-wrapped in kind 1059 (the default).
	WrapGift WrapMode = iota
	// WrapEphemeral gift-wraps in the ephemeral kind 21059.
	WrapEphemeral
	// WrapNone sends plaintext kind 25910 (readable by the relay operator,
	// delivered by a toolbus relay only to the two parties).
	WrapNone
)

func (m WrapMode) kind() int {
	switch m {
	case WrapEphemeral:
		return KindEphemeralGiftWrap
	case WrapNone:
		return 0
	default:
		return KindGiftWrap
	}
}

// DefaultCallTimeout is the deadline of a call whose context has none.
const DefaultCallTimeout = 60 * time.Second

// ClientOptions configures a Client; nil means defaults.
type ClientOptions struct {
	// Wrap is how calls are sent; default WrapGift.
	Wrap WrapMode
	// Timeout is the deadline of a call whose ctx has none; default
	// DefaultCallTimeout.
	Timeout time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Client calls tools on bus workers as one identity. Responses are matched
// to calls by their e tag (the request event id) only, and accepted only
// when signed by the worker the call went to.
type Client struct {
	conn  *Conn
	key   signer.Keyer
	opts  ClientOptions
	log   *slog.Logger
	self  string
	since nostr.Timestamp
	seen  *Dedupe
	sub   *Subscription
	ids   atomic.Int64

	mu      sync.Mutex
	pending map[string]*pendingCall // request event id -> call
	greeted map[string]bool         // workers sent our discovery tags
}

// pendingCall is a call awaiting its response.
type pendingCall struct {
	server   string
	reply    chan *jsonrpc.Response
	progress func(*mcp.ProgressNotificationParams)
}

// NewClient subscribes to replies addressed to key on conn (which should
// authenticate as key, so plaintext replies reach it) and returns once the
// subscription is live.
func NewClient(ctx context.Context, conn *Conn, key signer.Keyer, opts *ClientOptions) (*Client, error) {
	o := ClientOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultCallTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c := &Client{conn: conn, key: key, opts: o, log: o.Logger, self: key.PublicKey(),
		since: nostr.Now() - 2, seen: NewDedupe(100_000, 10*time.Minute),
		pending: map[string]*pendingCall{}, greeted: map[string]bool{}}
	// Start ids at a random point: a request event is identical to an
	// earlier one when key, second, id and params are, and the worker would
	// drop it as a duplicate (two runs of a CLI within one second, say).
	c.ids.Store(mrand.Int64N(1 << 40))
	sub, err := conn.Subscribe(ctx, c.filters, c.onEvent, nil)
	if err != nil {
		return nil, err
	}
	select {
	case <-sub.EOSE():
	case <-sub.Done():
		return nil, sub.Err()
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
	c.sub = sub
	return c, nil
}

// Close ends the client's subscription (the Conn stays open).
func (c *Client) Close() { c.sub.Close() }

// filters cover every reply addressed to us since the client started: after
// a reconnection, the relay's mailbox replays what was missed.
func (c *Client) filters() nostr.Filters {
	since := c.since
	return nostr.Filters{{Kinds: []int{KindMessage, KindGiftWrap, KindEphemeralGiftWrap},
		Tags: nostr.TagMap{"p": {c.self}}, Since: &since}}
}

// onEvent routes a reply to its call. It runs on the connection's delivery
// goroutine.
func (c *Client) onEvent(ev *nostr.Event) {
	inner := ev
	if IsWrapKind(ev.Kind) {
		var err error
		if inner, err = Unwrap(context.Background(), c.key, ev); err != nil {
			c.log.Debug("dropping gift wrap", "event", ev.ID, "err", err)
			return
		}
	}
	if inner.Kind != KindMessage || Recipient(inner) != c.self || c.seen.Seen(inner.ID) {
		return
	}
	call := c.lookup(ReplyTo(inner))
	if call == nil || inner.PubKey != call.server {
		return // not ours, or not from the worker we called
	}
	msg, err := Decode(inner)
	if err != nil {
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		select {
		case call.reply <- m:
		default:
		}
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" && call.progress != nil {
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(m.Params, &p) == nil {
				call.progress(&p)
			}
		}
	}
}

func (c *Client) lookup(eventID string) *pendingCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending[eventID]
}
