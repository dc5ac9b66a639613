package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"toolbus/signer"
)

// Sentinel errors of Conn. Test for them with errors.Is.
var (
	// ErrClosed is returned by operations on a Conn after Close.
	ErrClosed = errors.New("bus: connection closed")
	// ErrDisconnected means the connection dropped before the relay
	// answered. The relay may or may not have acted on what was sent, so
	// the caller decides whether to retry.
	ErrDisconnected = errors.New("bus: connection to the relay lost")
	// ErrNoSigner is returned by WaitAuth on a Conn without a Signer.
	ErrNoSigner = errors.New("bus: no signer configured")
)

// Defaults for ConnOptions fields left zero.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	DefaultAuthWait   = 2 * time.Second
)

// ConnOptions configures a Conn. The zero value (or a nil pointer) is a
// Conn that never authenticates and logs to slog.Default().
type ConnOptions struct {
	// Signer, when set, answers every NIP-42 AUTH challenge of the relay
	// automatically, on every connection. Without it the Conn stays
	// unauthenticated and only reads what the relay serves to anyone.
	Signer signer.Signer
	// Logger receives connection events (reconnects, dropped invalid
	// events, NOTICEs). It never receives key material. Default
	// slog.Default().
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the delay between reconnection
	// attempts, which doubles from MinBackoff up to MaxBackoff and is
	// jittered so that many clients of one restarted relay do not return
	// in lockstep. Defaults DefaultMinBackoff and DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// AuthWait is how long a new connection waits for the relay's AUTH
	// challenge before it is considered ready anyway (only with a Signer).
	// Waiting lets subscriptions be re-sent already authenticated, instead
	// of being refused with auth-required first. A challenge that arrives
	// later is still answered. Default DefaultAuthWait.
	AuthWait time.Duration
	// OnConnect, if set, is called after each successful connection, the
	// first one included: after AUTH completed (when a Signer is set and
	// the relay sent a challenge within AuthWait) and after every open
	// subscription was re-sent. It runs on the connection manager
	// goroutine, so it must return promptly and must not call Close.
	OnConnect func()
}

// Conn is a Nostr relay connection that reconnects by itself until Close.
// Publish waits for the relay's OK; subscriptions survive reconnections.
// All methods are safe for concurrent use.
type Conn struct {
	url    string
	opts   ConnOptions
	log    *slog.Logger
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{}
	once   sync.Once
	queue  chan item // relay messages for the dispatcher, in relay order

	mu      sync.Mutex
	sess    *session      // the ready session; nil while (re)connecting
	seq     uint64        // numbers sessions, so stale ones can be told apart
	changed chan struct{} // closed and replaced when sess or its auth changes
	subs    map[string]*Subscription
	// onConnect are hooks added after Dial (OnConnect): they run after
	// every later connection, like ConnOptions.OnConnect.
	onConnect []func()
}

// Dial connects to the relay at url (ws:// or wss://). The first
// connection, including its AUTH when a Signer is set, must be ready
// before ctx is done, or Dial fails. Afterwards the Conn reconnects on its
// own, with backoff, until Close.
func Dial(ctx context.Context, url string, opts *ConnOptions) (*Conn, error) {
	c := newConn(url, opts)
	c.wg.Add(1)
	go c.dispatchLoop()
	s, err := c.connect(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("bus: dial %s: %w", redact(url), err)
	}
	c.wg.Add(1)
	go c.run(s)
	return c, nil
}

func newConn(url string, opts *ConnOptions) *Conn {
	c := &Conn{url: url, done: make(chan struct{}), changed: make(chan struct{}),
		subs: map[string]*Subscription{}, queue: make(chan item, queueSize)}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MinBackoff <= 0 {
		c.opts.MinBackoff = DefaultMinBackoff
	}
	if c.opts.MaxBackoff < c.opts.MinBackoff {
		c.opts.MaxBackoff = max(DefaultMaxBackoff, c.opts.MinBackoff)
	}
	if c.opts.AuthWait <= 0 {
		c.opts.AuthWait = DefaultAuthWait
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("relay", redact(url))
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// Close ends the connection and every subscription, and waits until all of
// the Conn's goroutines have stopped: no callback runs after it returns.
// It must therefore not be called from onEvent or OnConnect. Close is
// idempotent and always returns nil.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.cancel()
		c.wg.Wait()
		c.mu.Lock()
		subs := c.subs
		c.subs = map[string]*Subscription{}
		c.mu.Unlock()
		for _, sub := range subs {
			sub.end(ErrClosed, false)
		}
		close(c.done)
	})
	<-c.done
	return nil
}

// Done is closed once the Conn is closed and all its goroutines stopped.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Authed returns the pubkey the current connection authenticated as with
// NIP-42, or "" if it has not (or the Conn is between connections).
func (c *Conn) Authed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		return ""
	}
	return c.sess.authedPubKey()
}

// WaitAuth waits until the current connection is authenticated. It returns
// ErrNoSigner at once if the Conn has no Signer, ErrClosed after Close, and
// ctx's error when ctx is done first (as it will be if the relay refuses
// the Signer's key: refusals are logged, not retried on the same
// connection).
func (c *Conn) WaitAuth(ctx context.Context) error {
	if c.opts.Signer == nil {
		return ErrNoSigner
	}
	for {
		c.mu.Lock()
		authed := c.sess != nil && c.sess.authedPubKey() != ""
		ch := c.changed
		c.mu.Unlock()
		if authed {
			return nil
		}
		if err := c.wait(ctx, ch); err != nil {
			return err
		}
	}
}

// ready returns the current ready session, waiting for a reconnection if
// there is none.
func (c *Conn) ready(ctx context.Context) (*session, error) {
	for {
		c.mu.Lock()
		s, ch := c.sess, c.changed
		c.mu.Unlock()
		if s != nil && !s.isDead() {
			return s, nil
		}
		if err := c.wait(ctx, ch); err != nil {
			return nil, err
		}
	}
}

// wait blocks until ch is closed, ctx is done or the Conn closes.
func (c *Conn) wait(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ctx.Done():
		return ErrClosed
	}
}

// notify wakes everyone waiting for a change of session or auth state.
func (c *Conn) notify() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// redact drops any userinfo from a URL before it is logged or put in an
// error.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable url)"
	}
	return u.Redacted()
}

// OnConnect adds fn to run after every later (re)connection, once it is
// authenticated and its subscriptions are re-sent — as ConnOptions.OnConnect
// does, for components that get the Conn after Dial (a worker re-announces
// itself to a relay that may have lost its announcements). fn must return
// promptly and must not call Close.
func (c *Conn) OnConnect(fn func()) {
	c.mu.Lock()
	c.onConnect = append(c.onConnect, fn)
	c.mu.Unlock()
}
