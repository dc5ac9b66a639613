package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// fanoutKind is the kind the fan-out workload publishes: ephemeral, so that
// it measures matching and delivery rather than the store's fsync.
const fanoutKind = 20001

// fanoutWarmup events are published one at a time first and not measured.
const fanoutWarmup = 5

// fanCompletion is one event having reached every subscriber.
type fanCompletion struct {
	idx int
	at  time.Time // when the last subscriber read it
}

// fanTally counts the deliveries of a known set of events to a set of
// subscribers and reports each event once all of them have it.
type fanTally struct {
	index     map[string]int // event id -> position
	remaining []atomic.Int32 // subscribers still to receive each event
	done      chan fanCompletion
	delivered atomic.Int64 // first receipts of known events
	dups      atomic.Int64 // receipts of an event a subscriber already had
}

func newFanTally(evs []signed, subscribers int) *fanTally {
	t := &fanTally{index: make(map[string]int, len(evs)), remaining: make([]atomic.Int32, len(evs)),
		done: make(chan fanCompletion, len(evs))}
	for i, ev := range evs {
		t.index[ev.id] = i
		t.remaining[i].Store(int32(subscribers))
	}
	return t
}

// read counts what one subscriber receives, until its connection ends.
func (t *fanTally) read(c *client) {
	seen := make([]bool, len(t.remaining))
	for {
		msg, l, err := c.next()
		if err != nil {
			return
		}
		at := time.Now()
		if l != "EVENT" {
			continue
		}
		id, err := eventID(msg)
		if err != nil {
			continue
		}
		i, ok := t.index[id]
		if !ok {
			continue
		}
		if seen[i] {
			t.dups.Add(1)
			continue
		}
		seen[i] = true
		t.delivered.Add(1)
		if t.remaining[i].Add(-1) == 0 {
			t.done <- fanCompletion{idx: i, at: at}
		}
	}
}

// await waits for the completions of events [from, to), allowing ioTimeout
// without progress, and returns when the last of them completed.
func (t *fanTally) await(from, to int) (time.Time, error) {
	var last time.Time
	for pending := to - from; pending > 0; {
		select {
		case c := <-t.done:
			if c.idx < from || c.idx >= to {
				return last, fmt.Errorf("event %d completed out of turn", c.idx)
			}
			if c.at.After(last) {
				last = c.at
			}
			pending--
		case <-time.After(ioTimeout):
			return last, fmt.Errorf("%d of events %d..%d never reached every subscriber", pending, from, to-1)
		}
	}
	return last, nil
}

// fanAcks collects the publisher's OKs in the background.
type fanAcks struct {
	mu       sync.Mutex
	n        int
	rejected map[string]int
	all      chan struct{} // closed once want OKs arrived
	want     int
}

func collectFanAcks(pub *client, want int) *fanAcks {
	a := &fanAcks{rejected: map[string]int{}, all: make(chan struct{}), want: want}
	go func() {
		for {
			msg, l, err := pub.next()
			if err != nil {
				return
			}
			if l != "OK" {
				continue
			}
			f, err := parseOK(msg)
			if err != nil {
				continue
			}
			a.mu.Lock()
			a.n++
			if !f.accepted {
				a.rejected[f.reason]++
			}
			if a.n == a.want {
				close(a.all)
			}
			a.mu.Unlock()
		}
	}()
	return a
}

// fanoutResult is one fan-out run against one relay.
type fanoutResult struct {
	// lastMs are, for each event published alone, the milliseconds from
	// sending it to the last subscriber receiving it.
	lastMs []float64
	// deliveries of the burst, and the time from its first write to its
	// last delivery.
	deliveries int64
	elapsed    time.Duration
	// counted are every first receipt, warmup and sequential events
	// included; dups are repeated receipts (a relay bug).
	counted, dups int64
	rejected      map[string]int
}

func (r fanoutResult) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.deliveries) / r.elapsed.Seconds()
}

// runFanout opens subs subscribers (authenticated as the crew's reader
// where the relay asks), each subscribed to the publisher's events of
// fanoutKind. evs are published from one more connection: the first
// warmup+seq one at a time, each once the previous one reached everyone,
// then the rest as one burst, written back to back.
func runFanout(ctx context.Context, r live, c *crew, subs int, evs []signed, warmup, seq int) (fanoutResult, error) {
	if warmup+seq > len(evs) {
		return fanoutResult{}, errors.New("fanout: fewer events than warmup and sequential samples")
	}
	filter := nostr.Filter{Kinds: []int{fanoutKind}, Authors: []string{c.publishers[0].PublicKey()}, LimitZero: true}
	conns := make([]*client, subs)
	defer closeAll(conns)
	err := inParallel(subs, func(i int) error {
		s, err := dial(ctx, r.url)
		if err != nil {
			return err
		}
		conns[i] = s
		if r.auth {
			if err := s.auth(c.reader, r.url); err != nil {
				return err
			}
		}
		return s.subscribe("fanout", filter)
	})
	if err != nil {
		return fanoutResult{}, fmt.Errorf("open %d subscribers: %w", subs, err)
	}
	t := newFanTally(evs, subs)
	for _, s := range conns {
		go t.read(s)
	}
	pub, err := dial(ctx, r.url)
	if err != nil {
		return fanoutResult{}, err
	}
	defer pub.close()
	oks := collectFanAcks(pub, len(evs))
	var res fanoutResult
	for i := range warmup + seq {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		sent := time.Now()
		if err := pub.write(evs[i].msg); err != nil {
			return res, err
		}
		last, err := t.await(i, i+1)
		if err != nil {
			return res, err
		}
		if i >= warmup {
			res.lastMs = append(res.lastMs, float64(last.Sub(sent))/float64(time.Millisecond))
		}
	}
	burst := evs[warmup+seq:]
	start := time.Now()
	for _, ev := range burst {
		if err := pub.write(ev.msg); err != nil {
			return res, err
		}
	}
	last, err := t.await(warmup+seq, len(evs))
	if err != nil {
		return res, err
	}
	if len(burst) > 0 {
		res.deliveries = int64(len(burst)) * int64(subs)
		res.elapsed = last.Sub(start)
	}
	select {
	case <-oks.all:
	case <-time.After(ioTimeout):
		return res, errors.New("publisher never got every OK")
	}
	oks.mu.Lock()
	res.rejected = oks.rejected
	oks.mu.Unlock()
	res.counted, res.dups = t.delivered.Load(), t.dups.Load()
	return res, nil
}

// fanoutWorkload measures delivery to subs subscribers: how long one event
// takes to reach the last of them (p50 over seq events per round), and
// deliveries per second over a burst of burst events.
func fanoutWorkload(c *crew, subs, seq, burst, rounds int) workload {
	name := fmt.Sprintf("fanout_%d", subs)
	var evs []signed
	return workload{
		name: name,
		metrics: []metric{
			{name: name, unit: "deliveries/s", better: higher, sample: "rate", stat: mean},
			{name: name + "_last_ms", unit: "ms", better: lower, sample: "last", stat: pct(50)},
		},
		rounds: rounds,
		prepare: func() (err error) {
			evs, err = signEvents(c.publishers[0], fanoutKind, fanoutWarmup+seq+burst, name)
			return err
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			res, err := runFanout(ctx, r, c, subs, evs, fanoutWarmup, seq)
			if err != nil {
				return outcome{}, err
			}
			return fanoutOutcome(name, res), nil
		},
	}
}

func fanoutOutcome(name string, res fanoutResult) outcome {
	o := outcome{samples: map[string][]float64{"rate": {res.rate()}, "last": res.lastMs}}
	if res.dups > 0 {
		o.failures = append(o.failures, fmt.Sprintf("%s: %d events delivered twice to one subscription", name, res.dups))
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
