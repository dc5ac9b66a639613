package triggers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"toolbus/bus"
	"toolbus/signer"
)

// Options adjusts a Runner; nil means defaults.
type Options struct {
	// Conn is an open relay connection authenticated as the runner's key;
	// when nil, Run dials Config.Relay itself (and closes it on return).
	Conn *bus.Conn
	// RelayPubKey is the relay's key ("$relay"); when empty it is read
	// from the relay's NIP-11 document, if a trigger needs it.
	RelayPubKey string
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Runner runs the triggers of one Config as one key.
type Runner struct {
	cfg      *Config
	key      signer.Keyer
	self     string
	opts     Options
	log      *slog.Logger
	triggers []*trigger
	sem      chan struct{}
	ready    chan struct{}

	// Set by Run.
	conn    *bus.Conn
	journal *journal
	caller  *caller
	relayPK string
	intake  *intake
	fail    context.CancelCauseFunc
	wg      sync.WaitGroup
	// hook, set by tests only, is called at the named crash points.
	hook func(stage string)
}

func (r *Runner) testHook(stage string) {
	if r.hook != nil {
		r.hook(stage)
	}
}

// New fills cfg's defaults, checks it and prepares a runner signing with key, which must be a
// workspace member (and a member of every channel it posts to).
func New(cfg *Config, key signer.Keyer, opts *Options) (*Runner, error) {
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, key: key, self: key.PublicKey(), log: slog.Default(),
		sem: make(chan struct{}, cfg.Concurrency), ready: make(chan struct{})}
	if opts != nil {
		r.opts = *opts
		if opts.Logger != nil {
			r.log = opts.Logger
		}
	}
	for i := range cfg.Triggers {
		t, err := compile(&cfg.Triggers[i])
		if err != nil {
			return nil, err
		}
		r.triggers = append(r.triggers, t)
	}
	return r, nil
}

// Ready is closed once Run has recovered the journal and subscribed:
// events published from then on are handled.
func (r *Runner) Ready() <-chan struct{} { return r.ready }

// Run handles events until ctx ends; call it once. Ending it is safe at any moment, as
// a kill is: calls under way are not cancelled, and the next Run collects
// their results. It returns nil after ctx ended, or the error that stopped
// it (the journal could not be written, say).
func (r *Runner) Run(parent context.Context) error {
	ctx, fail := context.WithCancelCause(parent)
	defer fail(nil)
	r.fail = fail
	var err error
	if r.journal, err = openJournal(r.cfg.StateDir, r.cfg.Retention.Duration); err != nil {
		return err
	}
	defer r.journal.close()
	if err := r.connect(ctx); err != nil {
		return nil // only ctx ends connecting: a shutdown
	}
	if r.opts.Conn == nil {
		defer r.conn.Close()
	}
	if err := r.setup(ctx); err != nil {
		fail(err)
		r.wg.Wait()
		if parent.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	r.log.Info("triggers ready", "npub", signer.EncodeNPub(r.self), "triggers", len(r.triggers))
	close(r.ready)
	<-ctx.Done()
	r.wg.Wait()
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

// connect dials the relay, retrying with backoff while it is unreachable:
// a runner started before its relay waits for it.
func (r *Runner) connect(ctx context.Context) error {
	if r.opts.Conn != nil {
		r.conn = r.opts.Conn
		return nil
	}
	for attempt := 1; ; attempt++ {
		dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		conn, err := bus.Dial(dctx, r.cfg.Relay, &bus.ConnOptions{Signer: r.key, Logger: r.log})
		cancel()
		if err == nil {
			r.conn = conn
			return nil
		}
		r.log.Warn("cannot reach the relay; retrying", "attempt", attempt, "err", err)
		if !sleep(ctx, backoff(attempt)) {
			return ctx.Err()
		}
	}
}

// setup resolves what filters need, recovers the journal, starts the
// reply subscription (so recovered calls get their results), then the
// trigger subscription and the goroutines.
func (r *Runner) setup(ctx context.Context) error {
	if err := r.resolveStatic(ctx); err != nil {
		return err
	}
	r.caller = newCaller(r.conn, r.key, r.log)
	if err := r.restore(); err != nil {
		return err
	}
	if err := r.caller.start(ctx); err != nil {
		return fmt.Errorf("subscribing to tool results: %w", err)
	}
	r.intake = newIntake()
	backlog := make(chan struct{})
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.intakeLoop(ctx, backlog) }()
	sub, err := r.conn.Subscribe(ctx, r.filters, r.intake.add, nil)
	if err != nil {
		return err
	}
	select {
	case <-sub.EOSE():
		r.intake.mark()
	case <-sub.Done():
		return fmt.Errorf("trigger subscription: %w", sub.Err())
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	r.watch(ctx, sub, "trigger")
	r.watch(ctx, r.caller.sub, "tool result")
	for _, t := range r.triggers {
		r.wg.Add(1)
		go func() { defer r.wg.Done(); r.process(ctx, t, backlog) }()
	}
	return nil
}

// watch stops the runner when the relay ends one of its subscriptions
// (membership revoked, say): it could no longer see events or results.
func (r *Runner) watch(ctx context.Context, sub *bus.Subscription, what string) {
	go func() {
		<-sub.Done()
		if err := sub.Err(); err != nil && ctx.Err() == nil {
			r.fail(fmt.Errorf("the relay closed the %s subscription: %w", what, err))
		}
	}()
}
