package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// idleSubsPerConn is how many unrelated subscriptions each idle connection
// holds. It stays under toolbus's default limits.max_subscriptions (64), so
// no limit is raised for these workloads; bare khatru has no such limit.
const idleSubsPerConn = 50

// idleLevels are the numbers of unrelated open subscriptions publish
// latency is measured under, in the order they are reached on one relay.
var idleLevels = []int{0, 1_000, 10_000, 50_000}

// idleKind is the kind the idle workload publishes: ephemeral, so the OK
// waits on matching and delivery alone, never on the store's fsync.
const idleKind = 20001

// idleLabel names a subscription count in metric names: 0, 1k, 50k.
func idleLabel(n int) string {
	if n == 0 {
		return "0"
	}
	return countLabel(n)
}

// unrelatedFilter is a subscription that matches none of the benchmark's
// published events: gift wraps (kind 1059) for a recipient nobody writes
// to, with limit 0. It is what a tool-bus peer waiting for its calls holds,
// and toolbus serves it to anyone, so no authentication is needed.
func unrelatedFilter() (nostr.Filter, error) {
	var p [32]byte
	if _, err := rand.Read(p[:]); err != nil {
		return nostr.Filter{}, err
	}
	return nostr.Filter{Kinds: []int{nostr.KindGiftWrap},
		Tags: nostr.TagMap{"p": []string{hex.EncodeToString(p[:])}}, LimitZero: true}, nil
}

// subscribeMany sends a REQ for each filter, with ids prefix0, prefix1,
// ..., without waiting in between, then waits for every EOSE: a client
// opening many subscriptions pipelines them.
func subscribeMany(c *client, prefix string, filters []nostr.Filter) error {
	for i, f := range filters {
		req, err := json.Marshal([]any{"REQ", fmt.Sprintf("%s%d", prefix, i), f})
		if err != nil {
			return err
		}
		if err := c.write(req); err != nil {
			return err
		}
	}
	for eose := 0; eose < len(filters); {
		msg, l, err := c.next()
		if err != nil {
			return err
		}
		switch l {
		case "EOSE":
			eose++
		case "CLOSED":
			return fmt.Errorf("subscription closed: %s", lastString(msg))
		}
	}
	return nil
}

// addUnrelated opens k more unrelated subscriptions on c, with ids
// starting at prefix.
func addUnrelated(c *client, prefix string, k int) error {
	filters := make([]nostr.Filter, k)
	for i := range filters {
		var err error
		if filters[i], err = unrelatedFilter(); err != nil {
			return err
		}
	}
	return subscribeMany(c, prefix, filters)
}

// inParallel runs fn(0..n-1) on idleDialers goroutines and joins the
// errors; each worker stops at its first error.
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, idleDialers)
	var wg sync.WaitGroup
	for w := range idleDialers {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += idleDialers {
				errs[w] = fn(i)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// idleSet is a growing set of connections holding unrelated
// subscriptions, idleSubsPerConn each (the last one possibly fewer).
type idleSet struct {
	url   string
	conns []*client
	held  []int // subscriptions on each connection
	total int
}

// grow opens subscriptions until the set holds total: first topping up the
// last connection, then on new ones opened in parallel.
func (s *idleSet) grow(ctx context.Context, total int) error {
	if n := len(s.conns); n > 0 && s.held[n-1] < idleSubsPerConn && s.total < total {
		k := min(idleSubsPerConn-s.held[n-1], total-s.total)
		if err := addUnrelated(s.conns[n-1], fmt.Sprintf("u%d-", s.held[n-1]), k); err != nil {
			return err
		}
		s.held[n-1] += k
		s.total += k
	}
	need := total - s.total
	if need <= 0 {
		return nil
	}
	fresh := (need + idleSubsPerConn - 1) / idleSubsPerConn
	conns := make([]*client, fresh)
	held := make([]int, fresh)
	err := inParallel(fresh, func(i int) error {
		c, err := dial(ctx, s.url)
		if err != nil {
			return err
		}
		conns[i] = c
		held[i] = min(idleSubsPerConn, need-i*idleSubsPerConn)
		return addUnrelated(c, "u", held[i])
	})
	for i, c := range conns {
		if c != nil {
			s.conns = append(s.conns, c)
			s.held = append(s.held, held[i])
		}
	}
	if err != nil {
		return err
	}
	s.total = total
	return nil
}

func (s *idleSet) close() { closeAll(s.conns) }

// idleWarmup events are published before each level's measurement and not
// counted: growing the set just allocated heavily on both relays.
const idleWarmup = 30

// idleBox bounds the publishing at one subscription level: at most
// len(pool)-warmup samples, and no more once budget has passed and min
// samples are in. Bare khatru matches every event against every open
// subscription, so at 50,000 it takes milliseconds per event; the box
// keeps the run's length bounded whatever the relay does.
type idleBox struct {
	warmup, min int
	budget      time.Duration
}

// runIdle measures publish latency (EVENT to OK) under each of levels
// unrelated subscriptions, with pools[i] published at levels[i] within
// box. One subscriber matches every published event: bare khatru refuses
// an ephemeral event nobody listens to. It returns milliseconds by level,
// the first box.warmup events of each level left out.
func runIdle(ctx context.Context, r live, c *crew, levels []int, pools [][]signed, box idleBox) ([][]float64, error) {
	sub, err := dial(ctx, r.url)
	if err != nil {
		return nil, err
	}
	defer sub.close()
	if r.auth {
		if err := sub.auth(c.reader, r.url); err != nil {
			return nil, err
		}
	}
	filter := nostr.Filter{Kinds: []int{idleKind}, Authors: []string{c.publishers[0].PublicKey()}, LimitZero: true}
	if err := sub.subscribe("live", filter); err != nil {
		return nil, err
	}
	total := 0
	for _, p := range pools {
		total += len(p)
	}
	arrivals := make(chan arrival, total)
	go listen(sub, arrivals)
	pub, err := dial(ctx, r.url)
	if err != nil {
		return nil, err
	}
	defer pub.close()
	idle := &idleSet{url: r.url}
	defer idle.close()
	out := make([][]float64, len(levels))
	for li, level := range levels {
		if err := idle.grow(ctx, level); err != nil {
			return nil, fmt.Errorf("open %d unrelated subscriptions: %w", level, err)
		}
		var start time.Time
		for i, ev := range pools[li] {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if i == box.warmup {
				start = time.Now()
			}
			d, _, err := publishTimed(pub, arrivals, ev) // EVENT→OK; delivery awaited so the next is not queued behind it
			if err != nil {
				return nil, fmt.Errorf("%d subscriptions, event %d: %w", level, i, err)
			}
			if i < box.warmup {
				continue
			}
			out[li] = append(out[li], float64(d)/float64(time.Millisecond))
			if len(out[li]) >= box.min && time.Since(start) >= box.budget {
				break
			}
		}
	}
	return out, nil
}

// idleMinSamples is the fewest samples a level's time budget allows.
const idleMinSamples = 60

// idleWorkload measures publish latency (EVENT to OK, ephemeral events)
// with 0, 1k, 10k and 50k unrelated subscriptions open, at most n samples
// per level and round, fewer (but idleMinSamples) once budget passed, all
// levels reached in turn on one fresh relay per round. It reports p50 and
// p99 per level, and how many times the 0-level p50 the top level's p50 is
// on each relay.
func idleWorkload(c *crew, n int, budget time.Duration, rounds int) workload {
	var metrics []metric
	for _, level := range idleLevels {
		name := "idle_" + idleLabel(level)
		metrics = append(metrics,
			metric{name: name + "_p50", unit: "ms", better: lower, sample: name, stat: pct(50)},
			metric{name: name + "_p99", unit: "ms", better: lower, sample: name, stat: pct(99)})
	}
	top := idleLevels[len(idleLevels)-1]
	metrics = append(metrics, metric{name: fmt.Sprintf("idle_%s_vs_0_p50", idleLabel(top)),
		unit: "x", better: lower, sample: "slowdown", stat: mean})
	var pools [][]signed
	return workload{
		name:    "idle",
		metrics: metrics,
		rounds:  rounds,
		prepare: func() error {
			pools = make([][]signed, len(idleLevels))
			for i, level := range idleLevels {
				var err error
				pools[i], err = signEvents(c.publishers[0], idleKind, n+idleWarmup, "idle_"+idleLabel(level))
				if err != nil {
					return err
				}
			}
			return nil
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			lat, err := runIdle(ctx, r, c, idleLevels, pools, idleBox{warmup: idleWarmup, min: idleMinSamples, budget: budget})
			if err != nil {
				return outcome{}, err
			}
			return idleOutcome(idleLevels, lat), nil
		},
	}
}

// idleOutcome files each level's latencies under its sample kind, and
// this round's top-level p50 over its 0-level p50 under "slowdown".
func idleOutcome(levels []int, lat [][]float64) outcome {
	o := outcome{samples: map[string][]float64{}}
	for i, level := range levels {
		o.samples["idle_"+idleLabel(level)] = lat[i]
	}
	if base := percentile(lat[0], 50); base > 0 {
		o.samples["slowdown"] = []float64{percentile(lat[len(lat)-1], 50) / base}
	}
	return o
}
