package triggers

import (
	"context"
	"errors"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
)

// handle takes one entry from its journaled state to done. It returns an
// error only at shutdown (the entry stays where it is, for the next run) or
// when the journal cannot be written.
func (r *Runner) handle(ctx context.Context, t *trigger, e *entry) error {
	switch e.State {
	case stateQueued:
		return r.begin(ctx, t, e)
	case stateCalling, stateSent:
		out, err := r.deliver(ctx, t, e, true)
		if err != nil {
			return err
		}
		return r.report(ctx, t, e, newData(t.name, e.Event, e.Repo, e.Call.Worker), out)
	case statePosting:
		return r.post(ctx, t, e)
	}
	return nil
}

// begin handles a fresh event: where to report, which worker, what call.
func (r *Runner) begin(ctx context.Context, t *trigger, e *entry) error {
	ch, err := r.channelFor(ctx, t, e)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		// With nowhere to say what happened, running the tool would be a
		// silent side effect: skip, loudly in the log.
		r.log.Error("trigger has nowhere to report; event not run", "trigger", t.name, "event", e.EventID, "err", err)
		return r.done(t, e, "not run: "+err.Error())
	}
	e.Channel = ch
	worker, err := r.worker(ctx, t)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	d := newData(t.name, e.Event, e.Repo, worker)
	if err != nil {
		return r.report(ctx, t, e, d, &outcome{problem: "could not find the worker: " + err.Error()})
	}
	tool, args, err := t.render(d)
	if err != nil {
		return r.report(ctx, t, e, d, &outcome{problem: "could not build the call: " + err.Error()})
	}
	r.log.Info("calling", "trigger", t.name, "event", e.EventID, "tool", tool, "worker", worker)
	out, err := r.call(ctx, t, e, worker, tool, args)
	if err != nil {
		return err
	}
	return r.report(ctx, t, e, d, out)
}

// channelFor decides the channel of e's message.
func (r *Runner) channelFor(ctx context.Context, t *trigger, e *entry) (string, error) {
	switch {
	case t.reply.channel != "":
		return t.reply.channel, nil
	case t.reply.thread:
		if h := bus.TagValue(e.Event, "h"); h != "" {
			return h, nil
		}
		return "", errors.New(`reply = "thread" but the event is in no channel (no h tag)`)
	}
	for attempt := 1; ; attempt++ {
		ch, err := r.repoChannel(ctx, e.Repo)
		if err == nil {
			return ch, nil
		}
		if isNoChannel(err) || attempt >= t.cfg.MaxAttempts || !sleep(ctx, backoff(attempt)) {
			return "", err
		}
	}
}

func isNoChannel(err error) bool {
	var nc *noChannelError
	return errors.As(err, &nc)
}

// noChannelError means the repository is bound to no channel (final).
type noChannelError struct{ repo string }

func (e *noChannelError) Error() string {
	return "repository " + e.repo + " has no announcement (kind 30617) with an h tag binding it to a channel"
}

// report composes the messages, journals them, and posts them.
func (r *Runner) report(ctx context.Context, t *trigger, e *entry, d *Data, o *outcome) error {
	if o.finished.IsZero() {
		o.finished = time.Now()
	}
	out, err := r.compose(ctx, t, e, d, o)
	if err != nil {
		return err
	}
	if err := r.journal.put(&record{Kind: "entry", Trigger: t.name, EventID: e.EventID,
		State: statePosting, Channel: e.Channel, Out: out}); err != nil {
		return err
	}
	e.State, e.Out = statePosting, out
	r.log.Info("result", "trigger", t.name, "event", e.EventID, "ok", o.ok(), "reason", o.reason())
	return r.post(ctx, t, e)
}

// post publishes e's messages, retrying transport failures until the relay
// answers (the trigger's queue waits meanwhile: order is kept), then marks
// the entry done.
func (r *Runner) post(ctx context.Context, t *trigger, e *entry) error {
	note := "posted"
	for i := range e.Out {
		if err := r.publishOut(ctx, &e.Out[i]); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			r.log.Error("the relay refused the trigger's message", "trigger", t.name, "event", e.EventID,
				"kind", e.Out[i].Kind, "err", err)
			note = "message refused: " + err.Error()
		}
	}
	return r.done(t, e, note)
}

// publishOut publishes ev until the relay accepts or refuses it.
func (r *Runner) publishOut(ctx context.Context, ev *nostr.Event) error {
	for attempt := 1; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := r.conn.Publish(pctx, ev)
		cancel()
		var rej *bus.RejectedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &rej) && rej.Prefix() != "rate-limited":
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		r.log.Warn("could not post; retrying", "event", ev.ID, "attempt", attempt, "err", err)
		if !sleep(ctx, backoff(attempt)) {
			return ctx.Err()
		}
	}
}

// done marks e finished.
func (r *Runner) done(t *trigger, e *entry, note string) error {
	e.State = stateDone
	return r.journal.put(&record{Kind: "entry", Trigger: t.name, EventID: e.EventID, State: stateDone, Note: note})
}
