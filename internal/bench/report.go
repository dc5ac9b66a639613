package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Row is one metric measured on both relays. Its JSON form is the contract
// for CI and for later workloads: {"name","unit","toolbus","baseline",
// "ratio","better"}, with ratio = toolbus/baseline (0 when the baseline
// measured 0) and better "higher" or "lower".
type Row struct {
	Name     string  `json:"name"`
	Unit     string  `json:"unit"`
	Toolbus  float64 `json:"toolbus"`
	Baseline float64 `json:"baseline"`
	Ratio    float64 `json:"ratio"`
	Better   string  `json:"better"`
}

func newRow(m metric, toolbus, baseline float64) Row {
	r := Row{Name: m.name, Unit: m.unit, Toolbus: round3(toolbus), Baseline: round3(baseline), Better: m.better}
	if baseline != 0 {
		r.Ratio = round3(toolbus / baseline)
	}
	return r
}

// round3 keeps three decimals: more is noise, and JSON stays readable.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// WriteJSON writes rows as an indented JSON list.
func WriteJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteTable writes the report for people: the machine, one line per row
// with its target, then notes and failures.
func (r *Report) WriteTable(w io.Writer) error {
	mode := "full"
	if r.Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "toolbus bench (%s) on %s\n", mode, r.Machine)
	if r.Signatures != "" {
		fmt.Fprintf(w, "signatures: %s\n", r.Signatures)
	}
	fmt.Fprintf(w, "baseline = bare khatru %s on eventstore %s lmdb, run from the same binary (relay, bus);\n"+
		"the same work without toolbus: stdio MCP, git over file:// (tools, mcp, git)\n\n",
		r.Machine.Khatru, r.Machine.Eventstore)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "name\tunit\ttoolbus\tbaseline\tratio\tbetter\ttarget\t")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", row.Name, row.Unit,
			formatValue(row.Toolbus, row.Unit), formatValue(row.Baseline, row.Unit),
			row.Ratio, row.Better, verdict(row))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL: %s\n", f)
	}
	return nil
}

func formatValue(v float64, unit string) string {
	switch {
	case unit == "events/s" || unit == "calls/s":
		return fmt.Sprintf("%.0f", v)
	case unit == "s" || (unit == "ms" && v < 10):
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// goal is a target from the issues: bounds on the ratio and/or on
// toolbus's own number. Zero fields are unset; a row meets its goal when
// it meets every bound set.
type goal struct {
	minRatio, maxRatio, minToolbus, maxToolbus float64
}

// goals are the issues' targets, set on the 2-core machine they were
// measured on. Relay (issue 8): durable ingest ≥ 1,000 events/s with one
// publisher and ≥ 10,000 with 16; publish→subscriber p50 ≤ 1 ms stored and
// ≤ 0.6 ms ephemeral, tails within 10% of bare khatru (issue 2); fan-out ≥
// 50,000 deliveries/s; 50,000 idle subscriptions cost ≤ 1.5× the p50 of
// none; a stuck subscriber adds ≤ 5 ms to the healthy ones' p99 and to the
// publisher's OK (checked on the whole p99, which bounds what it adds);
// ≤ 200 MB with 1,000 connections and 10,000 subscriptions. Bus
// (issue 3): round trip ≤ 1.3× the raw publish/subscribe floor, ≥ 2,500
// calls/s from 16 callers. Tools (issue 4): an idle worker ≤ 30 MB. MCP
// (issue 5): the adapter adds ≤ 1.5 ms p50. Git (issue 6): clone and push
// through the bridge ≤ 1.2× file://.
var goals = map[string]goal{
	"ingest_1":                 {minToolbus: 1000},
	"ingest_16":                {minToolbus: 10000},
	"e2e_stored_p50":           {maxToolbus: 1},
	"e2e_stored_p99":           {maxRatio: 1.1},
	"e2e_ephemeral_p50":        {maxToolbus: 0.6},
	"e2e_ephemeral_p99":        {maxRatio: 1.1},
	"fanout_100":               {minToolbus: 50000},
	"idle_50k_vs_0_p50":        {maxToolbus: 1.5},
	"stuck_sub_p99":            {maxToolbus: 5},
	"stuck_ok_p99":             {maxToolbus: 5},
	"rss_idle_mb":              {maxToolbus: 50},
	"rss_1k_conns_mb":          {maxToolbus: 150},
	"rss_1k_conns_10k_subs_mb": {maxToolbus: 200},
	"bus_rtt_p50":              {maxRatio: 1.3},
	"bus_calls_16":             {minToolbus: 2500},
	"worker_idle_rss_mb":       {maxToolbus: 30},
	"mcp_added_p50":            {maxToolbus: 1.5},
	"git_clone":                {maxRatio: 1.2},
	"git_push":                 {maxRatio: 1.2},
}

// verdict shows a row's target and whether it was met, or "-".
func verdict(r Row) string {
	g, ok := goals[r.Name]
	if !ok {
		return "-"
	}
	var want []string
	met := true
	check := func(set bool, text string, ok bool) {
		if set {
			want = append(want, text)
			met = met && ok
		}
	}
	check(g.minRatio > 0, fmt.Sprintf("≥%.2f×", g.minRatio), r.Ratio >= g.minRatio)
	check(g.maxRatio > 0, fmt.Sprintf("≤%.2f×", g.maxRatio), r.Ratio <= g.maxRatio)
	check(g.minToolbus > 0, fmt.Sprintf("≥%g %s", g.minToolbus, r.Unit), r.Toolbus >= g.minToolbus)
	check(g.maxToolbus > 0, fmt.Sprintf("≤%g %s", g.maxToolbus, r.Unit), r.Toolbus <= g.maxToolbus)
	text := strings.Join(want, ", ")
	if met {
		return text + " ok"
	}
	return text + " MISS"
}
