package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// idleDialers is how many connections are opened at once: clients arrive
// in parallel, but not as a thousand simultaneous handshakes.
const idleDialers = 16

// openIdle opens n connections, each holding one subscription with filter
// whose EOSE has arrived, and leaves them idle. On error it closes what it
// opened.
func openIdle(ctx context.Context, url string, n int, filter nostr.Filter) ([]*client, error) {
	conns := make([]*client, n)
	errs := make([]error, idleDialers)
	var wg sync.WaitGroup
	for w := range idleDialers {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += idleDialers {
				errs[w] = openOne(ctx, url, filter, &conns[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeAll(conns)
		return nil, err
	}
	return conns, nil
}

func openOne(ctx context.Context, url string, filter nostr.Filter, dst **client) error {
	c, err := dial(ctx, url)
	if err != nil {
		return err
	}
	*dst = c
	return c.subscribe("idle", filter)
}

func closeAll(conns []*client) {
	for _, c := range conns {
		if c != nil {
			c.close()
		}
	}
}

// connsWorkload measures the relay's resident memory right after start,
// with n idle subscribed connections, and with subs subscriptions spread
// over those connections. Every connection subscribes, unauthenticated,
// to gift wraps for one recipient with limit 0: toolbus serves that filter
// to anyone (gift wraps are its public kind), so no member authentication
// is needed, and the same REQ is valid on both relays. The further
// subscriptions are gift wraps for recipients nobody writes to
// (unrelatedFilter). settle is how long memory is left to settle before
// each reading.
func connsWorkload(c *crew, n, subs int, settle time.Duration) workload {
	filter := nostr.Filter{Kinds: []int{nostr.KindGiftWrap},
		Tags: nostr.TagMap{"p": []string{c.reader.PublicKey()}}, LimitZero: true}
	loaded := fmt.Sprintf("rss_%s_conns_mb", countLabel(n))
	metrics := []metric{
		{name: "rss_idle_mb", unit: "MB", better: lower, sample: "idle", stat: mean},
		{name: loaded, unit: "MB", better: lower, sample: "loaded", stat: mean},
	}
	// Each connection already holds one subscription; the rest are spread
	// evenly, within idleSubsPerConn per connection.
	perConn := 0
	if extra := subs - n; n > 0 && extra > 0 {
		perConn = (extra + n - 1) / n
		metrics = append(metrics, metric{name: fmt.Sprintf("rss_%s_conns_%s_subs_mb", countLabel(n), countLabel(subs)),
			unit: "MB", better: lower, sample: "subs", stat: mean})
	}
	return workload{
		name:    "rss",
		metrics: metrics,
		// Memory varies little between runs, and the workload is slow.
		rounds: 1,
		prepare: func() error {
			if 1+perConn > idleSubsPerConn {
				return fmt.Errorf("%d subscriptions over %d connections exceed %d per connection", subs, n, idleSubsPerConn)
			}
			return nil
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			if r.rssMB == nil {
				return outcome{}, errors.New("relay memory is not measurable in-process")
			}
			time.Sleep(settle)
			idle, err := r.rssMB()
			if err != nil {
				return outcome{}, err
			}
			conns, err := openIdle(ctx, r.url, n, filter)
			if err != nil {
				return outcome{}, fmt.Errorf("open %d idle connections: %w", n, err)
			}
			defer closeAll(conns)
			time.Sleep(settle)
			busy, err := r.rssMB()
			if err != nil {
				return outcome{}, err
			}
			o := outcome{samples: map[string][]float64{"idle": {idle}, "loaded": {busy}}}
			if perConn == 0 {
				return o, nil
			}
			if err := addSpread(conns, subs-n, perConn); err != nil {
				return outcome{}, fmt.Errorf("open %d subscriptions: %w", subs, err)
			}
			time.Sleep(settle)
			withSubs, err := r.rssMB()
			o.samples["subs"] = []float64{withSubs}
			return o, err
		},
	}
}

// addSpread opens extra unrelated subscriptions on conns, at most perConn
// on each, in parallel.
func addSpread(conns []*client, extra, perConn int) error {
	return inParallel(len(conns), func(i int) error {
		k := min(perConn, extra-i*perConn)
		if k <= 0 {
			return nil
		}
		return addUnrelated(conns[i], "more", k)
	})
}

// countLabel writes 1000 as "1k", keeping metric names short and stable.
func countLabel(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
