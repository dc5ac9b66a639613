package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// ingestResult is one ingest run against one relay.
type ingestResult struct {
	ok       int
	rejected map[string]int // OK false reason -> count
	elapsed  time.Duration
	// exhausted means a publisher used up its pre-signed events before the
	// deadline, so the run was shorter than asked.
	exhausted bool
}

// rate is accepted events per second.
func (r ingestResult) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.ok) / r.elapsed.Seconds()
}

// runIngest sends pools[i] over connection i, every publisher waiting for
// each OK before sending its next event, until d has passed or its pool is
// used up. Connections are opened before the clock starts.
func runIngest(ctx context.Context, url string, pools [][]signed, d time.Duration) (ingestResult, error) {
	conns := make([]*client, 0, len(pools))
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for range pools {
		c, err := dial(ctx, url)
		if err != nil {
			return ingestResult{}, err
		}
		conns = append(conns, c)
	}
	results := make([]ingestResult, len(pools))
	errs := make([]error, len(pools))
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range pools {
		wg.Go(func() { results[i], errs[i] = publish(ctx, conns[i], pools[i], deadline) })
	}
	wg.Wait()
	total := ingestResult{rejected: map[string]int{}, elapsed: time.Since(start)}
	for i, r := range results {
		if errs[i] != nil {
			return total, fmt.Errorf("publisher %d: %w", i, errs[i])
		}
		total.ok += r.ok
		total.exhausted = total.exhausted || r.exhausted
		for reason, n := range r.rejected {
			total.rejected[reason] += n
		}
	}
	return total, nil
}

// publish is one publisher's loop.
func publish(ctx context.Context, c *client, pool []signed, deadline time.Time) (ingestResult, error) {
	r := ingestResult{rejected: map[string]int{}}
	for _, ev := range pool {
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return r, ctx.Err()
		}
		if err := c.write(ev.msg); err != nil {
			return r, err
		}
		f, err := c.awaitOK(ev.id)
		if err != nil {
			return r, err
		}
		if f.accepted {
			r.ok++
		} else {
			r.rejected[f.reason]++
		}
	}
	r.exhausted = true
	return r, nil
}

// ingestWorkload measures durable ingest with n concurrent publishers for
// d per round, pre-signing perPublisher events for each. Every round starts
// on empty relays, so the same events serve every round and both relays.
func ingestWorkload(c *crew, n, perPublisher int, d time.Duration, rounds int) workload {
	name := fmt.Sprintf("ingest_%d", n)
	var pools [][]signed
	return workload{
		name:    name,
		metrics: []metric{{name: name, unit: "events/s", better: higher, sample: "rate", stat: mean}},
		rounds:  rounds,
		prepare: func() error {
			pools = make([][]signed, n)
			for i := range pools {
				var err error
				if pools[i], err = signEvents(c.publishers[i], 1, perPublisher, name); err != nil {
					return err
				}
			}
			return nil
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			res, err := runIngest(ctx, r.url, pools, d)
			if err != nil {
				return outcome{}, err
			}
			return ingestOutcome(name, res), nil
		},
	}
}

func ingestOutcome(name string, res ingestResult) outcome {
	o := outcome{samples: map[string][]float64{"rate": {res.rate()}}}
	if res.exhausted {
		o.notes = append(o.notes, fmt.Sprintf("%s: pre-signed events ran out after %.1f s (%d accepted)",
			name, res.elapsed.Seconds(), res.ok))
	}
	reasons := make([]string, 0, len(res.rejected))
	for reason := range res.rejected {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		o.failures = append(o.failures, fmt.Sprintf("%s: %d× OK false %q", name, res.rejected[reason], reason))
	}
	return o
}
