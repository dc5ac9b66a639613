package triggers

import (
	"context"
	"fmt"
	"time"
)

// restore puts unfinished journal entries back in their queues and
// registers the calls already made, before the reply subscription starts.
func (r *Runner) restore() error {
	byName := map[string]*trigger{}
	now := time.Now()
	for _, t := range r.triggers {
		byName[t.name] = t
		at, err := r.journal.start(t.name, now.Add(-t.cfg.Since.Duration).Unix())
		if err != nil {
			return err
		}
		t.start = nostrTime(at)
	}
	for _, e := range r.journal.unfinished() {
		t := byName[e.Trigger]
		if t == nil {
			r.log.Warn("journal entry of a trigger no longer configured; left alone", "trigger", e.Trigger, "event", e.EventID)
			continue
		}
		if e.Call != nil && (e.State == stateCalling || e.State == stateSent) {
			r.caller.expect(e.Call)
		}
		r.log.Info("resuming", "trigger", e.Trigger, "event", e.EventID, "state", e.State)
		t.queue.push(e)
	}
	return nil
}

// process handles one trigger's entries in order, after the backlog of
// stored events was queued (so it is sorted, not handled as it streams in).
func (r *Runner) process(ctx context.Context, t *trigger, backlog <-chan struct{}) {
	select {
	case <-backlog:
	case <-ctx.Done():
		return
	}
	for {
		e, err := t.queue.pop(ctx)
		if err != nil {
			return
		}
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		err = r.handle(ctx, t, e)
		<-r.sem
		if err != nil && ctx.Err() == nil {
			r.fail(fmt.Errorf("trigger %s: %w", t.name, err))
			return
		}
	}
}
