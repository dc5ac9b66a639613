package bench

import (
	"context"
	"testing"
	"time"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// startCrewToolbus serves an in-process toolbus relay, with its default
// limits but the benchmark's event rates, whose members are c's keys.
func startCrewToolbus(t *testing.T, c *crew) string {
	t.Helper()
	r := testutil.StartRelay(t, func(cfg *config.Config) {
		cfg.Workspace.Members = append(cfg.Workspace.Members, c.members()...)
		cfg.Limits.EventsPerSecond, cfg.Limits.EventsBurst = benchEventRate, benchEventRate
		cfg.Limits.IPEventsPerSecond, cfg.Limits.IPEventsBurst = benchEventRate, benchEventRate
	})
	return r.URL
}

// bothRelays returns an in-process bare khatru and an in-process toolbus
// (whose readers authenticate), as workloads see them.
func bothRelays(t *testing.T, c *crew) []live {
	return []live{
		{name: baselineName, url: startBaseline(t)},
		{name: toolbusName, url: startCrewToolbus(t, c), auth: true},
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestFanoutCountsDeliveries checks that every event reaches every
// subscriber exactly once and is counted as such, and that the rate and
// last-subscriber samples come from the right events.
func TestFanoutCountsDeliveries(t *testing.T) {
	c := testCrew(t)
	const subs, warmup, seq, burst = 5, 2, 4, 30
	evs := sign(t, c, 0, fanoutKind, warmup+seq+burst)
	for _, r := range bothRelays(t, c) {
		res, err := runFanout(testCtx(t), r, c, subs, evs, warmup, seq)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if res.counted != subs*int64(len(evs)) || res.dups != 0 {
			t.Errorf("%s: counted %d receipts (%d repeated), want %d", r.name, res.counted, res.dups, subs*len(evs))
		}
		if res.deliveries != subs*burst || res.elapsed <= 0 || res.rate() <= 0 {
			t.Errorf("%s: burst of %d deliveries in %s, want %d", r.name, res.deliveries, res.elapsed, subs*burst)
		}
		if len(res.lastMs) != seq {
			t.Errorf("%s: %d last-subscriber samples, want %d", r.name, len(res.lastMs), seq)
		}
		o := fanoutOutcome("fanout_5", res)
		if len(o.failures) != 0 || len(o.samples["rate"]) != 1 || len(o.samples["last"]) != seq {
			t.Errorf("%s: outcome %+v", r.name, o)
		}
	}
}

// TestFanTallyWaitsForEverySubscriber checks the tally itself: an event
// completes only once every subscriber has it, repeats are not counted.
func TestFanTallyWaitsForEverySubscriber(t *testing.T) {
	evs := []signed{{id: "a"}, {id: "b"}}
	ft := newFanTally(evs, 2)
	receive := func(id string) {
		i := ft.index[id]
		ft.delivered.Add(1)
		if ft.remaining[i].Add(-1) == 0 {
			ft.done <- fanCompletion{idx: i, at: time.Now()}
		}
	}
	receive("a")
	receive("b")
	select {
	case got := <-ft.done:
		t.Fatalf("event %d completed with one of two subscribers", got.idx)
	default:
	}
	receive("b")
	if _, err := ft.await(1, 2); err != nil {
		t.Fatal(err)
	}
}

func TestFanoutReportsOKFalse(t *testing.T) {
	o := fanoutOutcome("fanout_1", fanoutResult{rejected: map[string]int{"blocked: no": 3}, dups: 1})
	if len(o.failures) != 2 {
		t.Fatalf("failures = %q", o.failures)
	}
}
