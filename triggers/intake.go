package triggers

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// intake buffers events from the subscription's delivery goroutine, which
// must not wait for the journal's fsync. A nil event marks the end of the
// stored backlog.
type intake struct {
	mu   sync.Mutex
	evs  []*nostr.Event
	wake chan struct{}
}

func newIntake() *intake { return &intake{wake: make(chan struct{}, 1)} }

func (in *intake) add(ev *nostr.Event) {
	in.mu.Lock()
	in.evs = append(in.evs, ev)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *intake) mark() { in.add(nil) }

func (in *intake) take(ctx context.Context) ([]*nostr.Event, error) {
	for {
		in.mu.Lock()
		evs := in.evs
		in.evs = nil
		in.mu.Unlock()
		if len(evs) > 0 {
			return evs, nil
		}
		select {
		case <-in.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// filters is the trigger subscription, one filter per trigger. since never
// reaches back past a trigger's first run, nor past the retention (older
// events' journal entries may be gone, so they must not come back).
func (r *Runner) filters() nostr.Filters {
	floor := time.Now().Add(-r.cfg.Retention.Duration).Unix()
	out := make(nostr.Filters, len(r.triggers))
	for i, t := range r.triggers {
		f := t.filterFor(r.relayPK, r.self)
		since := nostrTime(max(int64(t.start), floor))
		f.Since = &since
		out[i] = f
	}
	return out
}

// intakeLoop journals what arrives and queues it; backlog is closed once
// everything stored before the subscription started is queued.
func (r *Runner) intakeLoop(ctx context.Context, backlog chan struct{}) {
	for {
		evs, err := r.intake.take(ctx)
		if err != nil {
			return
		}
		start := 0
		for i, ev := range evs {
			if ev != nil {
				continue
			}
			if r.admitOrFail(evs[start:i]) {
				return
			}
			start = i + 1
			close(backlog)
		}
		if r.admitOrFail(evs[start:]) {
			return
		}
	}
}

func (r *Runner) admitOrFail(evs []*nostr.Event) bool {
	if err := r.admit(evs); err != nil {
		r.fail(err)
		return true
	}
	return false
}

// admit records every new (trigger, event) match as queued, in one fsync,
// then queues them.
func (r *Runner) admit(evs []*nostr.Event) error {
	var recs []*record
	var queue []func()
	// The repository states this batch sets, not journaled yet: a state
	// event is compared with the one before it, even in the same batch.
	states := map[string]*RepoInfo{}
	floor := time.Now().Add(-r.cfg.Retention.Duration).Unix()
	for _, ev := range evs {
		if ev.PubKey == r.self || int64(ev.CreatedAt) < floor {
			continue // our own messages never trigger anything: no loops
		}
		recs, queue = r.match(ev, states, recs, queue)
	}
	if err := r.journal.put(recs...); err != nil {
		return err
	}
	for _, push := range queue {
		push()
	}
	return nil
}

// match appends the records of ev's new matches (and of the repository
// state it sets, also kept in states), and the pushes that queue them once
// journaled.
func (r *Runner) match(ev *nostr.Event, states map[string]*RepoInfo, recs []*record, queue []func()) ([]*record, []func()) {
	var repo *RepoInfo
	for _, t := range r.triggers {
		if !t.matches(r, ev) || r.journal.known(t.name, ev.ID) {
			continue
		}
		var ri *RepoInfo
		if ev.Kind == nostr.KindRepositoryState {
			if repo == nil {
				var rec *record
				if repo, rec = r.repoState(ev, states); rec != nil {
					recs = append(recs, rec)
					states[repo.Owner+"/"+repo.Name] = repo
				}
			}
			if repo == nil {
				break // not a usable state event
			}
			if ri = repo.forPatterns(t.cfg.Filter.Refs); ri == nil {
				continue
			}
		}
		e := &entry{Kind: "entry", Trigger: t.name, EventID: ev.ID, State: stateQueued,
			CreatedAt: int64(ev.CreatedAt), Event: ev, Repo: ri}
		recs = append(recs, e)
		queue = append(queue, func() { t.queue.push(e) })
	}
	return recs, queue
}

func (t *trigger) matches(r *Runner, ev *nostr.Event) bool {
	f := t.filterFor(r.relayPK, r.self)
	return ev.CreatedAt >= t.start && f.MatchesIgnoringTimestampConstraints(ev)
}

// repoState reads a state event against the latest one seen of the same
// repository (in states, else in the journal), and the journal record that
// makes it the latest.
func (r *Runner) repoState(ev *nostr.Event, states map[string]*RepoInfo) (*RepoInfo, *record) {
	d := ""
	if tag := ev.Tags.GetFirst([]string{"d", ""}); tag != nil {
		d = (*tag)[1]
	}
	prev := states[d]
	if prev == nil {
		prev = r.journal.repo(d)
	}
	if prev != nil && prev.StateEvent == ev.ID {
		return prev, nil // seen before (by a trigger since added): same changes
	}
	info, err := parseState(ev, prev)
	if err != nil {
		r.log.Warn("ignoring state event", "event", ev.ID, "err", err)
		return nil, nil
	}
	if prev != nil && info.CreatedAt < prev.CreatedAt {
		return info, nil // an older state arriving late does not replace the newer
	}
	return info, &record{Kind: "repo", Repo: info}
}

func nostrTime(unix int64) nostr.Timestamp { return nostr.Timestamp(unix) }

// cut shortens s to at most n bytes, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
