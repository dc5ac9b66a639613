package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Options configure a benchmark run.
type Options struct {
	// Quick shortens every workload so that the whole run fits in a
	// minute, for CI; the numbers are noisier.
	Quick bool
	// Exe is the toolbus binary the relays are started from, normally
	// os.Executable().
	Exe string
	// Progress, when set, receives a line as each measurement starts.
	Progress io.Writer
	// Suite selects the workloads: one of Suites; empty means SuiteAll.
	Suite string
}

// Report is the outcome of a run.
type Report struct {
	Machine Machine
	Quick   bool
	// Signatures is the signature backend the binary was built with
	// (SignatureBackend).
	Signatures string
	Rows       []Row
	// Notes qualify the numbers (settings the benchmark changed, say).
	Notes []string
	// Failures are relay misbehaviour seen while measuring; a run with any
	// should be treated as failed even though it has numbers.
	Failures []string
}

// sizes are how much each workload does.
type sizes struct {
	rounds       int           // per relay, for ingest, latency and the bus
	ingestFor    time.Duration // per round
	ingestEvents int           // pre-signed per ingest run, split among publishers
	latencyN     int           // samples per relay, over all rounds
	idleConns    int
	idleSubs     int // subscriptions over the idle connections, for memory
	settle       time.Duration
	busRTTN      int           // sequential bus calls measured per relay, over all rounds
	busFor       time.Duration // per bus throughput round
	fanoutSubs   int           // subscribers every fan-out event goes to
	fanoutSeq    int           // events published one at a time, per round
	fanoutBurst  int           // events published back to back, per round
	fanoutRounds int
	idleN        int           // most publish latency samples per subscription level and round
	idleFor      time.Duration // time after which a level stops at idleMinSamples
	idleRounds   int
	stuckHealthy int           // healthy subscribers beside the stuck one
	stuckN       int           // events per round
	stuckTimeout time.Duration // longest wait before a relay counts as stalled
	stuckRounds  int
}

// sizesFor returns the run's sizes. Ingest is bound by the store's fsync,
// which on shared virtual disks drifts by ±10% over seconds: alternating
// short rounds spreads that drift over both relays instead of letting it
// decide the ratio. The pre-signed pools allow about 8,000 events/s per
// run before they run out (a shorter run, noted in the report). The idle
// workload reaches 50,000 subscriptions in quick runs too: opening them
// takes a second or two. The stuck workload's timeout is what bare khatru
// is charged when it stalls (for up to a minute, see runStuck): long
// enough to be unmistakable, short enough to keep the run bounded.
func sizesFor(quick bool) sizes {
	if quick {
		return sizes{rounds: 2, ingestFor: 1500 * time.Millisecond, ingestEvents: 12_000,
			latencyN: 300, idleConns: 1000, idleSubs: 10_000, settle: 500 * time.Millisecond,
			busRTTN: 200, busFor: time.Second,
			fanoutSubs: 100, fanoutSeq: 30, fanoutBurst: 300, fanoutRounds: 1,
			idleN: 500, idleFor: 400 * time.Millisecond, idleRounds: 1,
			stuckHealthy: 10, stuckN: 200, stuckTimeout: 2 * time.Second, stuckRounds: 1}
	}
	return sizes{rounds: 3, ingestFor: 3 * time.Second, ingestEvents: 24_000,
		latencyN: 2000, idleConns: 1000, idleSubs: 10_000, settle: time.Second,
		busRTTN: 1000, busFor: 3 * time.Second,
		fanoutSubs: 100, fanoutSeq: 100, fanoutBurst: 1000, fanoutRounds: 3,
		idleN: 2000, idleFor: 2 * time.Second, idleRounds: 2,
		stuckHealthy: 10, stuckN: 500, stuckTimeout: 5 * time.Second, stuckRounds: 2}
}

// plan lists the workloads in the order they run.
func plan(c *crew, sz sizes) []workload {
	return []workload{
		ingestWorkload(c, 1, sz.ingestEvents, sz.ingestFor, sz.rounds),
		ingestWorkload(c, maxPublishers, sz.ingestEvents/maxPublishers, sz.ingestFor, sz.rounds),
		latencyWorkload(c, "e2e_stored", 1, sz.latencyN, sz.rounds),
		latencyWorkload(c, "e2e_ephemeral", 20001, sz.latencyN, sz.rounds),
		fanoutWorkload(c, sz.fanoutSubs, sz.fanoutSeq, sz.fanoutBurst, sz.fanoutRounds),
		idleWorkload(c, sz.idleN, sz.idleFor, sz.idleRounds),
		stuckWorkload(c, sz.stuckHealthy, sz.stuckN, sz.stuckTimeout, sz.stuckRounds),
		connsWorkload(c, sz.idleConns, sz.idleSubs, sz.settle),
	}
}

// Run measures the workloads of opts.Suite on fresh toolbus relays and
// fresh bare khatru relays, each a child process of opts.Exe.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Exe == "" {
		return nil, errors.New("bench: no executable to run the relays from")
	}
	sz := sizesFor(opts.Quick)
	if err := raiseFDLimit(uint64(sz.idleConns) + 1024); err != nil {
		return nil, fmt.Errorf("raise open-files limit: %w", err)
	}
	c, err := newCrew()
	if err != nil {
		return nil, err
	}
	bc, err := newBusCrew()
	if err != nil {
		return nil, err
	}
	rep := &Report{Machine: DetectMachine(), Quick: opts.Quick, Signatures: SignatureBackend}
	ws, err := suitePlan(opts.Suite, c, bc, sz, rep)
	if err != nil {
		return nil, err
	}
	ds := directPlan(opts.Suite, opts.Quick, bc, rep)
	subjects := []subject{toolbusSubject(append(c.members(), bc.members()...)), baselineSubject()}
	for i, w := range ws {
		if err := w.prepare(); err != nil {
			return nil, fmt.Errorf("%s: prepare: %w", w.name, err)
		}
		got, err := measureRounds(ctx, opts, subjects, w, i, rep)
		if err != nil {
			return nil, err
		}
		for _, m := range w.metrics {
			rep.Rows = append(rep.Rows, newRow(m,
				m.stat(got[toolbusName][m.sample]), m.stat(got[baselineName][m.baselineSample()])))
		}
	}
	// The direct suites run on the toolbus relay alone (see directWorkload).
	for _, d := range ds {
		rows, err := runDirect(ctx, opts, subjects[0], d, rep)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	return rep, nil
}

// relayNotes qualify the relay suite's numbers.
func relayNotes(sz sizes) []string {
	fan := fmt.Sprintf("fanout_%d", sz.fanoutSubs)
	top := "idle_" + idleLabel(idleLevels[len(idleLevels)-1])
	return []string{
		fmt.Sprintf("toolbus runs in members mode with per-author and per-address event rate limits raised to %d/s and limits.max_connections_per_ip raised to %d", benchEventRate, benchConnsPerIP),
		"toolbus subscribers of the latency, fan-out, idle and stuck workloads authenticate (NIP-42) as members; the idle connections and unrelated subscriptions subscribe unauthenticated to gift wraps (kind 1059, #p, limit 0)",
		fmt.Sprintf("ingest and latency: %d alternating rounds per relay, each on a fresh relay; ingest is the mean of the rounds' rates, latency percentiles pool all samples", sz.rounds),
		fmt.Sprintf("%s: %d subscribers of ephemeral events (kind %d: delivery, not fsync), %d round(s) per relay; %s is deliveries/s over %d events written back to back, %s_last_ms the p50 over %d events sent one at a time of the time until the last subscriber had one",
			fan, sz.fanoutSubs, fanoutKind, sz.fanoutRounds, fan, sz.fanoutBurst, fan, sz.fanoutSeq),
		fmt.Sprintf("idle_N: EVENT→OK of ephemeral events (kind %d: matching cost, not fsync) sent one at a time, with N unrelated subscriptions open, %d per connection (within toolbus's default max_subscriptions, so no limit is raised); the levels are reached in turn on one fresh relay, %d round(s) per relay, each level at most %d samples and, after %s, at least %d; %s_vs_0_p50 is %s_p50 / idle_0_p50 on each relay (issue target for toolbus: ≤ 1.5)",
			idleKind, idleSubsPerConn, sz.idleRounds, sz.idleN, sz.idleFor, idleMinSamples, top, top),
		fmt.Sprintf("stuck: one subscriber stops reading (socket receive buffer %d KiB) while it and %d healthy ones match %d ephemeral events of %d KiB sent one at a time, %d round(s) per relay; stuck_sub_p99 is publish→delivery at the healthy ones, stuck_ok_p99 EVENT→OK; a wait past %s ends the round as stalled, and it and every event not yet sent count as %s",
			stuckRcvBuf>>10, sz.stuckHealthy, sz.stuckN, stuckContentBytes>>10, sz.stuckRounds, sz.stuckTimeout, sz.stuckTimeout),
		fmt.Sprintf("rss: %d connections with one subscription each, then %d subscriptions over the same connections", sz.idleConns, sz.idleSubs),
	}
}

// measureRounds runs w's rounds, alternating which subject goes first (and
// starting with a different one for consecutive workloads), and returns
// the pooled samples by subject name. Notes and failures go to rep.
func measureRounds(ctx context.Context, opts Options, subjects []subject, w workload, seq int, rep *Report) (map[string]map[string][]float64, error) {
	got := map[string]map[string][]float64{}
	for round := range w.rounds {
		order := slices.Clone(subjects)
		if (seq+round)%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "bench: %s on %s (round %d/%d)\n", w.name, s.name, round+1, w.rounds)
			}
			o, err := measureOn(ctx, opts.Exe, s, w.name, func(r live) (outcome, error) { return w.measure(ctx, r) })
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", w.name, s.name, err)
			}
			if got[s.name] == nil {
				got[s.name] = map[string][]float64{}
			}
			for k, xs := range o.samples {
				got[s.name][k] = append(got[s.name][k], xs...)
			}
			rep.Notes = append(rep.Notes, prefixed(s.name, o.notes)...)
			rep.Failures = append(rep.Failures, prefixed(s.name, o.failures)...)
		}
	}
	return got, nil
}

// measureOn starts s, runs measure (workload name) against it and stops it. Anything the relay
// logged is passed on as a note: toolbus logs only warnings here, and the
// baseline only errors. So is a measurement other processes disturbed.
func measureOn(ctx context.Context, exe string, s subject, name string, measure func(live) (outcome, error)) (outcome, error) {
	p, err := s.start(ctx, exe)
	if err != nil {
		return outcome{}, err
	}
	load := watchLoad()
	o, err := measure(live{name: s.name, url: p.url, auth: s.auth, rssMB: p.rssMB})
	if n := load.note(); n != "" {
		o.notes = append(o.notes, name+": "+n)
	}
	if stopErr := p.stop(); err == nil {
		err = stopErr
	}
	if logged := noteworthy(p.logs.lines()); len(logged) > 0 {
		o.notes = append(o.notes, fmt.Sprintf("%s: relay logged %d lines, last: %s", name, len(logged), logged[len(logged)-1]))
	}
	return o, err
}

func prefixed(name string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = name + ": " + l
	}
	return out
}

// noteworthy drops the log lines every fresh relay prints: the LMDB
// backend announces its schema migrations when it creates a store.
func noteworthy(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, "[lmdb] migration") {
			out = append(out, l)
		}
	}
	return out
}
