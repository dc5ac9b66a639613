package bench

import (
	"context"
	"fmt"
	"time"

	"toolbus/signer"
)

// The bus suite measures a whole tool call, not the relay alone: unlike
// the relay workloads, whose clients pre-sign everything so that only the
// relay is timed, a call's signing, verifying and encoding by the caller
// and the worker are what is being measured, so they happen inside the
// timing, in this process, on the cores the relay also uses. The baseline
// column is the floor (see busfloor.go): the same exchange with nothing
// but Nostr in it. Both sides use the same relay process layout and the
// same keys.

// maxCallers is the most concurrent bus callers any workload uses.
const maxCallers = 16

// busWarmup calls per caller open every round, unmeasured: the first calls
// pay for the worker's MCP session, cold caches and lazily built state.
const busWarmup = 20

// busCrew are the keys of the bus workloads: the worker (the floor's
// responder) and the callers, each on its own connection. All of them are
// workspace members of the toolbus relay.
type busCrew struct {
	worker  *signer.Local
	callers []*signer.Local
}

func newBusCrew() (*busCrew, error) {
	keys, err := newKeys(maxCallers + 1)
	if err != nil {
		return nil, err
	}
	return &busCrew{worker: keys[0], callers: keys[1:]}, nil
}

// members lists every key of the crew as hex public keys.
func (bc *busCrew) members() []string {
	out := []string{bc.worker.PublicKey()}
	for _, k := range bc.callers {
		out = append(out, k.PublicKey())
	}
	return out
}

// busPlan lists the bus workloads: round trips of one caller, then
// throughput with one and with maxCallers callers.
func busPlan(bc *busCrew, sz sizes) []workload {
	return []workload{
		busRTTWorkload(bc, sz.busRTTN, sz.rounds),
		busRateWorkload(bc, 1, sz.busFor, sz.rounds),
		busRateWorkload(bc, maxCallers, sz.busFor, sz.rounds),
	}
}

// busNotes qualify the bus suite's numbers.
func busNotes(sz sizes) []string {
	return []string{
		"bus: toolbus = bus.Client callers → toolbus relay → bus.Server worker with a go-sdk MCP echo tool, plaintext kind 25910, every party an authenticated member with its own connection; callers and worker run in the bench process",
		"bus: baseline = the floor: the same tools/call request and response as raw kind-25910 publish/subscribe through bus.Conn on the bare khatru relay; both sides sign every message and verify every signature they receive, as on the toolbus side",
		"bus: *_wrapped rows are informational (no target): the same calls gift-wrapped (kind 1059, NIP-44), compared with the plaintext floor",
		fmt.Sprintf("bus: %d alternating rounds per relay, each on a fresh relay with %d warm-up calls per caller; round trips are %d sequential calls per relay in all, calls/s counts successful results over %s per round with every caller calling back-to-back", sz.rounds, busWarmup, sz.busRTTN, sz.busFor),
	}
}

// Sample kinds of the bus workloads; the wrapped kinds exist only on the
// toolbus side.
const (
	sampleRTT         = "rtt"
	sampleRTTWrapped  = "rtt_wrapped"
	sampleRate        = "rate"
	sampleRateWrapped = "rate_wrapped"
)

// busRTTWorkload measures one caller's sequential round trips, n per relay
// over all rounds.
func busRTTWorkload(bc *busCrew, n, rounds int) workload {
	perRound := (n + rounds - 1) / rounds
	return workload{
		name: "bus_rtt",
		metrics: []metric{
			{name: "bus_rtt_p50", unit: "ms", better: lower, sample: sampleRTT, stat: pct(50)},
			{name: "bus_rtt_p99", unit: "ms", better: lower, sample: sampleRTT, stat: pct(99)},
			{name: "bus_rtt_wrapped_p50", unit: "ms", better: lower, sample: sampleRTTWrapped, floor: sampleRTT, stat: pct(50)},
			{name: "bus_rtt_wrapped_p99", unit: "ms", better: lower, sample: sampleRTTWrapped, floor: sampleRTT, stat: pct(99)},
		},
		rounds:  rounds,
		prepare: func() error { return nil },
		measure: func(ctx context.Context, r live) (outcome, error) {
			return onBus(ctx, r, bc, 1, "bus_rtt", func(call callFunc) ([]float64, tally) {
				return measureRTT(ctx, call, perRound)
			}, sampleRTT, sampleRTTWrapped)
		},
	}
}

// busRateWorkload measures calls/s of callers calling back-to-back for d.
func busRateWorkload(bc *busCrew, callers int, d time.Duration, rounds int) workload {
	name := fmt.Sprintf("bus_calls_%d", callers)
	return workload{
		name: name,
		metrics: []metric{
			{name: name, unit: "calls/s", better: higher, sample: sampleRate, stat: mean},
			{name: fmt.Sprintf("bus_calls_wrapped_%d", callers), unit: "calls/s", better: higher,
				sample: sampleRateWrapped, floor: sampleRate, stat: mean},
		},
		rounds:  rounds,
		prepare: func() error { return nil },
		measure: func(ctx context.Context, r live) (outcome, error) {
			return onBus(ctx, r, bc, callers, name, func(call callFunc) ([]float64, tally) {
				rate, fails := measureRate(ctx, call, callers, d)
				return []float64{rate}, fails
			}, sampleRate, sampleRateWrapped)
		},
	}
}

// onBus starts the bus side for r with n callers, warms every caller up and
// measures each variant (plaintext, then gift-wrapped where there is one),
// filing the samples under plainKind or wrappedKind. Failed calls are
// failures of the run, labelled with the workload's name.
func onBus(ctx context.Context, r live, bc *busCrew, n int, name string,
	measure func(callFunc) ([]float64, tally), plainKind, wrappedKind string) (outcome, error) {
	side, err := startBusSide(ctx, r, bc, n)
	if err != nil {
		return outcome{}, err
	}
	defer side.close()
	o := outcome{samples: map[string][]float64{}}
	kinds := []string{plainKind, wrappedKind}
	for i, v := range side.variants {
		if err := warmUp(ctx, v.call, n); err != nil {
			return outcome{}, fmt.Errorf("%s warm-up: %w", v.name, err)
		}
		xs, fails := measure(v.call)
		o.samples[kinds[i]] = xs
		if fails.n > 0 {
			o.failures = append(o.failures, fails.describe(name+" "+v.name))
		}
	}
	return o, ctx.Err()
}
