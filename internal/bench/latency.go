package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// arrival is when the subscriber received an event.
type arrival struct {
	id string
	at time.Time
}

// latencyWarmup events are sent first and not measured: the first few pay
// for cold caches and lazily built state in both relays.
const latencyWarmup = 10

// runLatency subscribes as reader with filter, then publishes evs one at a
// time from a second connection, and returns for each event after the first
// warmup the milliseconds from sending it to the subscriber receiving it.
// The next event is sent only once the previous one has arrived and been
// acknowledged, so this is latency without queueing.
func runLatency(ctx context.Context, r live, reader *signer.Local, filter nostr.Filter, evs []signed, warmup int) ([]float64, error) {
	sub, err := dial(ctx, r.url)
	if err != nil {
		return nil, err
	}
	defer sub.close()
	if r.auth {
		if err := sub.auth(reader, r.url); err != nil {
			return nil, err
		}
	}
	if err := sub.subscribe("latency", filter); err != nil {
		return nil, err
	}
	arrivals := make(chan arrival, len(evs))
	go listen(sub, arrivals)
	pub, err := dial(ctx, r.url)
	if err != nil {
		return nil, err
	}
	defer pub.close()
	lat := make([]float64, 0, len(evs))
	for i, ev := range evs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		_, d, err := publishTimed(pub, arrivals, ev)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		if i >= warmup {
			lat = append(lat, float64(d)/float64(time.Millisecond))
		}
	}
	return lat, nil
}

// publishTimed sends ev and waits for its OK and then for the subscriber
// to receive it; it returns how long after sending each came.
func publishTimed(pub *client, arrivals <-chan arrival, ev signed) (acked, delivered time.Duration, err error) {
	sent := time.Now()
	if err := pub.write(ev.msg); err != nil {
		return 0, 0, err
	}
	f, err := pub.awaitOK(ev.id)
	if err != nil {
		return 0, 0, err
	}
	acked = time.Since(sent)
	if !f.accepted {
		return 0, 0, errors.New("OK false: " + f.reason)
	}
	timeout := time.After(ioTimeout)
	for {
		select {
		case a, ok := <-arrivals:
			if !ok {
				return 0, 0, errors.New("subscriber connection ended")
			}
			if a.id == ev.id {
				return acked, a.at.Sub(sent), nil
			}
		case <-timeout:
			return 0, 0, errors.New("subscriber never received the event")
		}
	}
}

// listen timestamps every event the subscriber receives, until its
// connection ends.
func listen(sub *client, arrivals chan<- arrival) {
	defer close(arrivals)
	for {
		msg, l, err := sub.next()
		if err != nil {
			return
		}
		at := time.Now()
		if l != "EVENT" {
			continue
		}
		if id, err := eventID(msg); err == nil {
			arrivals <- arrival{id: id, at: at}
		}
	}
}

// latencyWorkload measures publish→subscriber latency for at least n events
// of kind, split over rounds, reporting the pooled p50 and p99 as
// <prefix>_p50 and <prefix>_p99.
func latencyWorkload(c *crew, prefix string, kind, n, rounds int) workload {
	p50, p99 := prefix+"_p50", prefix+"_p99"
	author := c.publishers[0]
	filter := nostr.Filter{Kinds: []int{kind}, Authors: []string{author.PublicKey()}, LimitZero: true}
	var evs []signed
	return workload{
		name: prefix,
		metrics: []metric{
			{name: p50, unit: "ms", better: lower, sample: "latency", stat: pct(50)},
			{name: p99, unit: "ms", better: lower, sample: "latency", stat: pct(99)},
		},
		rounds: rounds,
		prepare: func() (err error) {
			perRound := (n + rounds - 1) / rounds
			evs, err = signEvents(author, kind, perRound+latencyWarmup, prefix)
			return err
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			lat, err := runLatency(ctx, r, c.reader, filter, evs, latencyWarmup)
			if err != nil {
				return outcome{}, err
			}
			return outcome{samples: map[string][]float64{"latency": lat}}, nil
		},
	}
}
