package bench

import (
	"testing"
	"time"
)

// TestIdleSetGrows checks that the set opens exactly the subscriptions asked
// for, idleSubsPerConn per connection, and that toolbus, with its default
// per-connection limit, accepts them.
func TestIdleSetGrows(t *testing.T) {
	c := testCrew(t)
	for _, r := range bothRelays(t, c) {
		s := &idleSet{url: r.url}
		for _, total := range []int{0, 30, 75, 2*idleSubsPerConn + 20} {
			if err := s.grow(testCtx(t), total); err != nil {
				s.close()
				t.Fatalf("%s: grow to %d: %v", r.name, total, err)
			}
			sum := 0
			for _, h := range s.held {
				if h > idleSubsPerConn {
					t.Errorf("%s: %d subscriptions on one connection", r.name, h)
				}
				sum += h
			}
			if s.total != total || sum != total || len(s.conns) != (total+idleSubsPerConn-1)/idleSubsPerConn {
				t.Errorf("%s: total %d, held %v on %d connections, want %d", r.name, s.total, s.held, len(s.conns), total)
			}
		}
		s.close()
	}
}

// TestIdleLatencyPerLevel runs the idle measurement on small levels: every
// event is acknowledged and measured under its own level.
func TestIdleLatencyPerLevel(t *testing.T) {
	c := testCrew(t)
	levels := []int{0, 60}
	const warmup, n = 2, 6
	pools := [][]signed{sign(t, c, 0, idleKind, warmup+n), sign(t, c, 0, idleKind, warmup+n)}
	for _, r := range bothRelays(t, c) {
		lat, err := runIdle(testCtx(t), r, c, levels, pools, idleBox{warmup: warmup, min: n, budget: time.Hour})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		for i := range levels {
			if len(lat[i]) != n {
				t.Fatalf("%s: level %d: %d samples, want %d", r.name, levels[i], len(lat[i]), n)
			}
		}
		o := idleOutcome(levels, lat)
		if len(o.samples["idle_0"]) != n || len(o.samples["idle_60"]) != n || len(o.samples["slowdown"]) != 1 {
			t.Errorf("%s: outcome samples %v", r.name, o.samples)
		}
	}
}

// TestIdleBudgetStopsEarly checks that a level stops at its minimum sample
// count once its time budget is spent.
func TestIdleBudgetStopsEarly(t *testing.T) {
	c := testCrew(t)
	pools := [][]signed{sign(t, c, 0, idleKind, 30)}
	lat, err := runIdle(testCtx(t), live{url: startBaseline(t)}, c, []int{0}, pools, idleBox{warmup: 2, min: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(lat[0]) != 5 {
		t.Fatalf("%d samples, want the minimum of 5", len(lat[0]))
	}
}

func TestIdleMetricNames(t *testing.T) {
	want := map[string]bool{"idle_0_p50": true, "idle_1k_p99": true, "idle_10k_p50": true,
		"idle_50k_p50": true, "idle_50k_p99": true, "idle_50k_vs_0_p50": true}
	for _, m := range idleWorkload(testCrew(t), 10, time.Second, 1).metrics {
		delete(want, m.name)
	}
	if len(want) > 0 {
		t.Fatalf("missing metrics %v", want)
	}
}
