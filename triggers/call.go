package triggers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"toolbus/bus"
)

// resendWindow is how old a request that may not have reached the relay
// can be and still be sent again after a restart. The identical event is
// dropped as a duplicate by the relay (it remembers recent ids) and by the
// worker (10 minutes), so within this window resending cannot run the
// tool twice; beyond it, it could, so the call is given up instead.
const resendWindow = 5 * time.Minute

// call makes the tool call for e, retrying while the worker refuses it
// unrun (rate limited). It returns a nil outcome only with an error
// (shutdown, or the journal failed).
func (r *Runner) call(ctx context.Context, t *trigger, e *entry, worker, tool string, args map[string]any) (*outcome, error) {
	for attempt := 1; ; attempt++ {
		rec, err := r.caller.build(ctx, worker, tool, args, t.cfg.Plaintext, t.cfg.Timeout.Duration)
		if err != nil {
			return &outcome{problem: "could not build the call: " + err.Error()}, nil
		}
		rec.Attempt = attempt
		r.caller.expect(rec)
		// Write-ahead: the request is durable before it can reach anyone.
		if err := r.journal.put(&record{Kind: "entry", Trigger: t.name, EventID: e.EventID,
			State: stateCalling, Channel: e.Channel, Call: rec}); err != nil {
			r.caller.forget(rec.Request)
			return nil, err
		}
		e.State, e.Call = stateCalling, rec
		out, err := r.deliver(ctx, t, e, false)
		if err != nil {
			return nil, err
		}
		if out.retry && attempt < t.cfg.MaxAttempts {
			r.log.Warn("worker refused the call before running it; retrying", "trigger", t.name,
				"event", e.EventID, "attempt", attempt, "reason", out.problem)
			if !sleep(ctx, max(out.retryAfter, backoff(attempt))) {
				return nil, context.Cause(ctx)
			}
			continue
		}
		return out, nil
	}
}

// deliver publishes e's journaled request unless it was already accepted,
// then waits for its result. recovered says the request comes from the
// journal of an earlier run.
func (r *Runner) deliver(ctx context.Context, t *trigger, e *entry, recovered bool) (*outcome, error) {
	rec := e.Call
	w := r.caller.expect(rec)
	defer r.caller.forget(rec.Request)
	lost := "" // what to say if no result comes
	if recovered {
		lost = fmt.Sprintf("result lost: the call was sent at %s by an earlier run of the trigger runner, and no "+
			"result arrived by its deadline (it may have come while the runner was down, and is no longer in the "+
			"relay's mailbox); it was not run again", time.Unix(rec.Started, 0).UTC().Format(time.RFC3339))
	}
	switch {
	case e.State != stateCalling:
	case recovered && time.Since(time.Unix(rec.Started, 0)) > resendWindow:
		r.log.Warn("request of an earlier run may never have been sent; too old to send again, waiting for a result only",
			"trigger", t.name, "event", e.EventID, "request", rec.Request)
		lost = fmt.Sprintf("result lost: an earlier run of the trigger runner stopped while sending the call at %s; "+
			"it may never have reached the worker, and is too old to send again safely; it was not run again",
			time.Unix(rec.Started, 0).UTC().Format(time.RFC3339))
	default:
		if out, err := r.send(ctx, t, e); out != nil || err != nil {
			return out, err
		}
	}
	return r.await(ctx, t, rec, w, lost)
}

// send publishes e's request and journals that the relay accepted it. It
// returns an outcome only when sending failed.
func (r *Runner) send(ctx context.Context, t *trigger, e *entry) (*outcome, error) {
	r.testHook("publish")
	if err := r.publishCall(ctx, t, e.Call); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return &outcome{call: e.Call, problem: err.Error()}, nil
	}
	if r.testHook("published"); ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err := r.journal.put(&record{Kind: "entry", Trigger: t.name, EventID: e.EventID, State: stateSent}); err != nil {
		return nil, err
	}
	e.State = stateSent
	return nil, nil
}

// publishCall sends the request, again (the same event) after transport
// failures, with backoff, up to max_attempts times. A refusal by the relay
// other than rate limiting is final.
func (r *Runner) publishCall(ctx context.Context, t *trigger, rec *callRecord) error {
	var err error
	for attempt := 1; attempt <= t.cfg.MaxAttempts; attempt++ {
		if err = r.caller.publish(ctx, rec); err == nil {
			return nil
		}
		var rej *bus.RejectedError
		if errors.As(err, &rej) && rej.Prefix() != "rate-limited" {
			return fmt.Errorf("the relay refused the call: %s", rej.Reason)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn("could not send the call; retrying", "trigger", t.name, "attempt", attempt, "err", err)
		if attempt < t.cfg.MaxAttempts && !sleep(ctx, backoff(attempt)) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("could not send the call to the relay after %d attempts: %v", t.cfg.MaxAttempts, err)
}

// await waits for the reply until the call's deadline. A result already
// delivered (a mailbox replay after a restart) wins over a passed deadline.
// lost, when set, is the problem reported if no result comes.
func (r *Runner) await(ctx context.Context, t *trigger, rec *callRecord, w *waiter, lost string) (*outcome, error) {
	select {
	case resp := <-w.reply:
		return resultOutcome(rec, resp), nil
	default:
	}
	timer := time.NewTimer(time.Until(time.Unix(rec.Deadline, 0)))
	defer timer.Stop()
	select {
	case resp := <-w.reply:
		return resultOutcome(rec, resp), nil
	case <-ctx.Done():
		return nil, context.Cause(ctx) // shutdown: the call runs on, the next run collects it
	case <-timer.C:
	}
	r.caller.cancel(rec, t.cfg.Plaintext)
	if lost == "" {
		lost = fmt.Sprintf("no result within %s (the call was cancelled)", t.cfg.Timeout)
	}
	return &outcome{call: rec, problem: lost, finished: time.Now()}, nil
}
