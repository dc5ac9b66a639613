package triggers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
)

// resolveStatic learns, before subscribing, what filters name by
// placeholder: the relay's key and the workers named in "$worker".
func (r *Runner) resolveStatic(ctx context.Context) error {
	r.relayPK = r.opts.RelayPubKey
	for _, t := range r.triggers {
		if r.relayPK == "" && t.uses(placeRelay) {
			pk, err := bus.RelayPubKey(ctx, r.cfg.Relay)
			if err != nil {
				return fmt.Errorf("learning the relay's key for $relay: %w", err)
			}
			r.relayPK = pk
		}
		if t.uses(placeWorker) && t.workerPK == "" {
			// The filter cannot be sent without it: wait for the worker.
			for attempt := 1; ; attempt++ {
				pk, err := r.workerByName(ctx, t.cfg.WorkerName)
				if err == nil {
					t.workerPK = pk
					break
				}
				r.log.Warn("waiting for the worker to announce itself", "trigger", t.name, "worker_name", t.cfg.WorkerName, "err", err)
				if !sleep(ctx, backoff(attempt)) {
					return context.Cause(ctx)
				}
			}
		}
	}
	return nil
}

// worker returns the trigger's worker, resolving worker_name with retries.
func (r *Runner) worker(ctx context.Context, t *trigger) (string, error) {
	if t.workerPK != "" {
		return t.workerPK, nil
	}
	var err error
	for attempt := 1; attempt <= t.cfg.MaxAttempts; attempt++ {
		var pk string
		if pk, err = r.workerByName(ctx, t.cfg.WorkerName); err == nil {
			t.workerPK = pk
			return pk, nil
		}
		if attempt < t.cfg.MaxAttempts && !sleep(ctx, backoff(attempt)) {
			return "", context.Cause(ctx)
		}
	}
	return "", err
}

// workerByName finds the newest kind-11316 announcement with the name.
func (r *Runner) workerByName(ctx context.Context, name string) (string, error) {
	evs, err := r.query(ctx, nostr.Filter{Kinds: []int{bus.KindServerAnnouncement}, Limit: 500})
	if err != nil {
		return "", err
	}
	var best *nostr.Event
	for _, ev := range evs {
		if bus.TagValue(ev, bus.TagName) == name && (best == nil || ev.CreatedAt > best.CreatedAt) {
			best = ev
		}
	}
	if best == nil {
		return "", fmt.Errorf("no worker named %q has announced itself (kind 11316)", name)
	}
	return best.PubKey, nil
}

// repoChannel returns the channel a repository's announcement binds it to.
func (r *Runner) repoChannel(ctx context.Context, repo *RepoInfo) (string, error) {
	evs, err := r.query(ctx, nostr.Filter{Kinds: []int{nostr.KindRepositoryAnnouncement},
		Authors: []string{repo.Owner}, Tags: nostr.TagMap{"d": {repo.Name}}})
	if err != nil {
		return "", err
	}
	var best *nostr.Event
	for _, ev := range evs {
		if best == nil || ev.CreatedAt > best.CreatedAt {
			best = ev
		}
	}
	if ch := bus.TagValue(best, "h"); ch != "" {
		return ch, nil
	}
	return "", &noChannelError{repo: repo.Name}
}

// query returns the stored events matching f.
func (r *Runner) query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var out []*nostr.Event
	sub, err := r.conn.Subscribe(ctx, func() nostr.Filters { return nostr.Filters{f} }, func(ev *nostr.Event) {
		mu.Lock()
		out = append(out, ev)
		mu.Unlock()
	}, nil)
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	select {
	case <-sub.EOSE():
	case <-sub.Done():
		if err := sub.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("query ended early")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]*nostr.Event(nil), out...), nil
}

// backoff is the wait before retry attempt+1: 1 s doubling to 1 min.
func backoff(attempt int) time.Duration {
	d := time.Second << min(attempt-1, 6)
	return min(d, time.Minute)
}

// sleep waits d unless ctx ends first (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
