package bench

import (
	"slices"
	"testing"
)

// issueRows are the row names the benchmark issue requires in the JSON.
var issueRows = []string{
	"ingest_1", "ingest_16", "e2e_stored_p50", "e2e_stored_p99", "e2e_ephemeral_p50",
	"fanout_100", "idle_0_p50", "idle_50k_p50", "stuck_sub_p99", "bus_rtt_p50",
	"bus_calls_16", "mcp_added_p50", "git_clone",
}

// TestFullRunHasIssueRows: a full run (not --quick, which stops the idle
// levels at 10k) declares every required row, so renaming a metric in a
// workload fails here rather than in someone's dashboard.
func TestFullRunHasIssueRows(t *testing.T) {
	c, bc := testCrew(t), testBusCrew(t)
	rep := &Report{}
	ws, err := suitePlan(SuiteAll, c, bc, sizesFor(false), rep)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		for _, m := range w.metrics {
			names = append(names, m.name)
		}
	}
	for _, w := range directPlan(SuiteAll, false, bc, rep) {
		for _, m := range w.metrics {
			names = append(names, m.name)
		}
		if w.derived != nil {
			for _, r := range w.derived(map[string][]float64{}) {
				names = append(names, r.Name)
			}
		}
	}
	for _, want := range issueRows {
		if !slices.Contains(names, want) {
			t.Errorf("a full run has no row %q (rows: %v)", want, names)
		}
	}
	for _, want := range issueRows {
		if want == "idle_0_p50" || want == "idle_50k_p50" {
			continue // levels, compared through idle_50k_vs_0_p50
		}
		if _, ok := goals[want]; !ok {
			t.Errorf("row %q has no target in goals", want)
		}
	}
}
