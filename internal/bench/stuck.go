package bench

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// stuckKind is the kind the stuck-subscriber workload publishes: ephemeral,
// so that nothing but delivery can hold up an OK.
const stuckKind = 20001

// stuckContentBytes is the content size of the stuck workload's events:
// large, because what stands between a relay and a client that stopped
// reading is megabytes of kernel buffers on loopback (the relay's socket
// send buffer grows to net.ipv4.tcp_wmem's maximum, 4 MiB by default).
// On such a machine bare khatru stalls at about the 118th event.
const stuckContentBytes = 32 << 10

// stuckRcvBuf is the receive buffer asked for the stuck client's socket,
// so that its side holds next to nothing and the relay's buffers fill first.
const stuckRcvBuf = 4 << 10

// stuckWarmup events are published first and not measured.
const stuckWarmup = 5

// dialStuck opens a websocket with a small socket receive buffer. The
// caller subscribes and then never reads from it again, so that once the
// buffers are full the relay can no longer write to it.
func dialStuck(ctx context.Context, url string) (*client, error) {
	d := *dialer
	d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := (&net.Dialer{Timeout: ioTimeout}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			if err := tc.SetReadBuffer(stuckRcvBuf); err != nil {
				nc.Close()
				return nil, err
			}
		}
		return nc, nil
	}
	ws, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	return &client{ws: ws}, nil
}

// signLarge signs n events of kind by key with contents of about size
// bytes each, unique to tag.
func signLarge(key *signer.Local, kind, n, size int, tag string) ([]signed, error) {
	pad := strings.Repeat("x", size)
	out := make([]signed, n)
	now := nostr.Now()
	for i := range out {
		ev := nostr.Event{Kind: kind, CreatedAt: now, Content: fmt.Sprintf("%s #%d %s", tag, i, pad)}
		if err := signOne(key, &ev, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stuckOK is an OK with when it arrived.
type stuckOK struct {
	f  okFrame
	at time.Time
}

// stuckResult is one stuck-subscriber run against one relay.
type stuckResult struct {
	// okMs are, per measured event, the milliseconds from sending it to
	// its OK; subMs, per measured event and healthy subscriber, to that
	// subscriber receiving it. Waits that ran into the timeout count as
	// the timeout.
	okMs, subMs []float64
	// stalledAt is the index of the event whose OK or delivery did not
	// come within the timeout (-1: none); the run stops there, and the
	// events not sent count as the timeout too.
	stalledAt int
	rejected  map[string]int
}

// runStuck subscribes healthy subscribers and one stuck one (halfway in
// subscription order) to the same events, then publishes evs one at a
// time, each once the previous one's OK and deliveries are in, and times
// both. A wait longer than timeout ends the run as stalled: bare khatru
// writes to its subscribers from the publisher's goroutine without a
// deadline, and stays blocked until its 60 s pong timeout drops the stuck
// client.
func runStuck(ctx context.Context, r live, c *crew, healthy int, evs []signed, warmup int, timeout time.Duration) (stuckResult, error) {
	res := stuckResult{stalledAt: -1, rejected: map[string]int{}}
	filter := nostr.Filter{Kinds: []int{stuckKind}, Authors: []string{c.publishers[0].PublicKey()}, LimitZero: true}
	subscribe := func(s *client) error {
		if r.auth {
			if err := s.auth(c.reader, r.url); err != nil {
				return err
			}
		}
		return s.subscribe("live", filter)
	}
	var conns []*client
	defer func() { closeAll(conns) }()
	arrivals := make([]chan arrival, healthy)
	for i := range healthy {
		if i == healthy/2 {
			stuck, err := dialStuck(ctx, r.url)
			if err != nil {
				return res, err
			}
			// Closed first, so that a relay blocked writing to it
			// lets go before the others leave.
			defer stuck.close()
			if err := subscribe(stuck); err != nil {
				return res, fmt.Errorf("stuck subscriber: %w", err)
			}
		}
		s, err := dial(ctx, r.url)
		if err != nil {
			return res, err
		}
		conns = append(conns, s)
		if err := subscribe(s); err != nil {
			return res, err
		}
		arrivals[i] = make(chan arrival, len(evs))
		go listen(s, arrivals[i])
	}
	pub, err := dial(ctx, r.url)
	if err != nil {
		return res, err
	}
	conns = append(conns, pub)
	oks := make(chan stuckOK, len(evs))
	go func() {
		defer close(oks)
		for {
			msg, l, err := pub.next()
			if err != nil {
				return
			}
			at := time.Now()
			if l != "OK" {
				continue
			}
			if f, err := parseOK(msg); err == nil {
				oks <- stuckOK{f: f, at: at}
			}
		}
	}()
	timeoutMs := float64(timeout) / float64(time.Millisecond)
	for i, ev := range evs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		sent := time.Now()
		deadline := sent.Add(timeout)
		if err := pub.write(ev.msg); err != nil {
			return res, err
		}
		okMs, stalled := timeoutMs, true
		if ok, found := awaitOKUntil(oks, ev.id, deadline); found {
			okMs, stalled = millis(ok.at.Sub(sent)), false
			if !ok.f.accepted {
				res.rejected[ok.f.reason]++
			}
		}
		subMs := make([]float64, healthy)
		for j, a := range arrivals {
			subMs[j] = timeoutMs
			if at, found := awaitArrivalUntil(a, ev.id, deadline); found {
				subMs[j] = millis(at.Sub(sent))
			} else {
				stalled = true
			}
		}
		if i >= warmup || stalled {
			res.okMs = append(res.okMs, okMs)
			res.subMs = append(res.subMs, subMs...)
		}
		if stalled {
			res.stalledAt = i
			for range len(evs) - i - 1 {
				res.okMs = append(res.okMs, timeoutMs)
				for range healthy {
					res.subMs = append(res.subMs, timeoutMs)
				}
			}
			break
		}
	}
	return res, nil
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// awaitOKUntil waits for the OK for id until deadline.
func awaitOKUntil(oks <-chan stuckOK, id string, deadline time.Time) (stuckOK, bool) {
	timer := time.NewTimer(max(time.Until(deadline), 0))
	defer timer.Stop()
	for {
		select {
		case ok, open := <-oks:
			if !open {
				return stuckOK{}, false
			}
			if ok.f.id == id {
				return ok, true
			}
		case <-timer.C:
			return stuckOK{}, false
		}
	}
}

// awaitArrivalUntil waits for event id on arrivals until deadline.
func awaitArrivalUntil(arrivals <-chan arrival, id string, deadline time.Time) (time.Time, bool) {
	timer := time.NewTimer(max(time.Until(deadline), 0))
	defer timer.Stop()
	for {
		// What has arrived already counts even once the deadline passed.
		select {
		case a, open := <-arrivals:
			if !open {
				return time.Time{}, false
			}
			if a.id == id {
				return a.at, true
			}
			continue
		default:
		}
		select {
		case a, open := <-arrivals:
			if !open {
				return time.Time{}, false
			}
			if a.id == id {
				return a.at, true
			}
		case <-timer.C:
			return time.Time{}, false
		}
	}
}

// stuckWorkload measures, with one subscriber that stopped reading, the
// publish→delivery p99 of the healthy subscribers matching the same events
// and the publisher's EVENT→OK p99, over n events of stuckContentBytes per
// round. A relay that stalls is measured until timeout and reported at it.
func stuckWorkload(c *crew, healthy, n int, timeout time.Duration, rounds int) workload {
	var evs []signed
	return workload{
		name: "stuck",
		metrics: []metric{
			{name: "stuck_sub_p99", unit: "ms", better: lower, sample: "sub", stat: pct(99)},
			{name: "stuck_ok_p99", unit: "ms", better: lower, sample: "ok", stat: pct(99)},
		},
		rounds: rounds,
		prepare: func() (err error) {
			evs, err = signLarge(c.publishers[0], stuckKind, stuckWarmup+n, stuckContentBytes, "stuck")
			return err
		},
		measure: func(ctx context.Context, r live) (outcome, error) {
			res, err := runStuck(ctx, r, c, healthy, evs, stuckWarmup, timeout)
			if err != nil {
				return outcome{}, err
			}
			return stuckOutcome(res, len(evs), timeout), nil
		},
	}
}

func stuckOutcome(res stuckResult, n int, timeout time.Duration) outcome {
	o := outcome{samples: map[string][]float64{"ok": res.okMs, "sub": res.subMs}}
	if res.stalledAt >= 0 {
		o.notes = append(o.notes, fmt.Sprintf(
			"stuck: publishing stalled at event %d of %d (OK or a healthy delivery not within %s); that event and the %d not sent count as %s",
			res.stalledAt+1, n, timeout, n-res.stalledAt-1, timeout))
	}
	reasons := make([]string, 0, len(res.rejected))
	for reason := range res.rejected {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		o.failures = append(o.failures, fmt.Sprintf("stuck: %d× OK false %q", res.rejected[reason], reason))
	}
	return o
}
