package bench

import (
	"context"
	"testing"
	"time"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

func testBusCrew(t *testing.T) *busCrew {
	t.Helper()
	bc, err := newBusCrew()
	if err != nil {
		t.Fatal(err)
	}
	return bc
}

// startToolbus serves an in-process toolbus relay with bc's keys as
// members and the benchmark's raised limits.
func startToolbus(t *testing.T, bc *busCrew) string {
	t.Helper()
	r := testutil.StartRelay(t, func(cfg *config.Config) {
		cfg.Workspace.Members = append(cfg.Workspace.Members, bc.members()...)
		cfg.Limits.EventsPerSecond, cfg.Limits.EventsBurst = benchEventRate, benchEventRate
		cfg.Limits.IPEventsPerSecond, cfg.Limits.IPEventsBurst = benchEventRate, benchEventRate
	})
	return r.URL
}

// checkBus runs the round-trip and throughput workloads on r and checks
// that every call came back right (a wrong echo is a failure), that the
// round trips of each sample kind in kinds all completed, and that each
// kind got its rate.
func checkBus(t *testing.T, r live, bc *busCrew, kinds ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 25
	o, err := busRTTWorkload(bc, n, 1).measure(ctx, r)
	if err != nil || len(o.failures) > 0 {
		t.Fatalf("rtt: %v %v", err, o.failures)
	}
	for _, k := range kinds {
		if got := len(o.samples["rtt"+k]); got != n {
			t.Errorf("rtt%s: %d round trips, want %d", k, got, n)
		}
	}
	o, err = busRateWorkload(bc, 3, 200*time.Millisecond, 1).measure(ctx, r)
	if err != nil || len(o.failures) > 0 {
		t.Fatalf("rate: %v %v", err, o.failures)
	}
	// No call may fail, but a slow machine (or -race) may finish none
	// within the window, so the rate itself is not checked.
	for _, k := range kinds {
		if xs := o.samples["rate"+k]; len(xs) != 1 || xs[0] < 0 {
			t.Errorf("rate%s = %v, want one rate", k, xs)
		}
	}
}

// TestBusFloor runs the floor exchange against a bare khatru relay.
func TestBusFloor(t *testing.T) {
	bc := testBusCrew(t)
	checkBus(t, live{name: baselineName, url: startBaseline(t)}, bc, "")
}

// TestBusToolbus runs bus calls, plaintext and wrapped, through a toolbus
// relay.
func TestBusToolbus(t *testing.T) {
	bc := testBusCrew(t)
	checkBus(t, live{name: toolbusName, url: startToolbus(t, bc), auth: true}, bc, "", "_wrapped")
}

func TestSuitePlan(t *testing.T) {
	c, bc := testCrew(t), testBusCrew(t)
	sz := sizesFor(true)
	relay, bus := len(plan(c, sz)), len(busPlan(bc, sz))
	for suite, want := range map[string]int{"": relay + bus, SuiteRelay: relay, SuiteBus: bus, SuiteAll: relay + bus} {
		ws, err := suitePlan(suite, c, bc, sz, &Report{})
		if err != nil || len(ws) != want {
			t.Errorf("suite %q: %d workloads, %v; want %d", suite, len(ws), err, want)
		}
	}
	if _, err := suitePlan("nope", c, bc, sz, &Report{}); err == nil {
		t.Error("unknown suite accepted")
	}
}
