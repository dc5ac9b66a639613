package bench

import (
	"fmt"
	"slices"
)

// Suites of workloads, as `toolbus bench [suite]` names them.
const (
	// SuiteRelay is the relay's own workloads: ingest, publish→subscriber
	// latency and memory. It is what `toolbus bench` runs by default.
	SuiteRelay = "relay"
	// SuiteBus is tool calls over the bus against the raw publish/subscribe
	// floor (see busPlan).
	SuiteBus = "bus"
	// SuiteAll runs the relay suite, then the bus suite.
	SuiteAll = "all"
)

// Suites lists the suite names Options.Suite accepts.
var Suites = []string{SuiteRelay, SuiteBus, SuiteAll}

// ValidSuite reports whether name is a suite, "" (the default) included.
func ValidSuite(name string) bool {
	return name == "" || slices.Contains(Suites, name)
}

// suitePlan returns the workloads of suite in the order they run, and adds
// the notes that qualify their numbers to rep.
func suitePlan(suite string, c *crew, bc *busCrew, sz sizes, rep *Report) ([]workload, error) {
	if !ValidSuite(suite) {
		return nil, fmt.Errorf("unknown suite %q (want one of %v)", suite, Suites)
	}
	var ws []workload
	if suite != SuiteBus {
		ws = append(ws, plan(c, sz)...)
		rep.Notes = append(rep.Notes, relayNotes(sz)...)
	}
	if suite == SuiteBus || suite == SuiteAll {
		ws = append(ws, busPlan(bc, sz)...)
		rep.Notes = append(rep.Notes, busNotes(sz)...)
	}
	return ws, nil
}
