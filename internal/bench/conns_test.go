package bench

import (
	"testing"
)

// TestConnsWorkloadSubs runs the memory workload with a stand-in memory
// reading: every reading is taken, and the subscriptions beyond one per
// connection are opened (the relay refusing one fails the measurement).
func TestConnsWorkloadSubs(t *testing.T) {
	c := testCrew(t)
	w := connsWorkload(c, 6, 40, 0)
	names := map[string]bool{}
	for _, m := range w.metrics {
		names[m.name] = true
	}
	if !names["rss_6_conns_40_subs_mb"] || !names["rss_6_conns_mb"] {
		t.Fatalf("metrics %v", names)
	}
	if err := w.prepare(); err != nil {
		t.Fatal(err)
	}
	for _, r := range bothRelays(t, c) {
		readings := 0
		r.rssMB = func() (float64, error) { readings++; return float64(readings), nil }
		o, err := w.measure(testCtx(t), r)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if readings != 3 || len(o.samples["idle"]) != 1 || len(o.samples["loaded"]) != 1 || o.samples["subs"][0] != 3 {
			t.Fatalf("%s: %d readings, samples %v", r.name, readings, o.samples)
		}
	}
	if err := connsWorkload(c, 2, 2*idleSubsPerConn+2, 0).prepare(); err == nil {
		t.Fatal("more subscriptions per connection than idleSubsPerConn accepted")
	}
}
