package bench

import (
	"fmt"
	"slices"
)

// Suites of workloads, as `toolbus bench [suite]` names them.
const (
	// SuiteRelay is the relay's own workloads: ingest, publish→subscriber
	// latency, fan-out, idle and stuck subscriptions, memory.
	SuiteRelay = "relay"
	// SuiteBus is tool calls over the bus against the raw publish/subscribe
	// floor (see busPlan).
	SuiteBus = "bus"
	// SuiteTools is the built-in tools called on the bus from a worker
	// process against the same tools over stdio, and the idle worker's
	// memory (see toolsWorkload).
	SuiteTools = "tools"
	// SuiteMCP is a tools/call through the MCP adapter, the relay and a
	// worker against the same call over stdio (see mcpWorkload).
	SuiteMCP = "mcp"
	// SuiteGit is git push and clone through the relay's git bridge against
	// the same over file:// (see gitWorkload).
	SuiteGit = "git"
	// SuiteAll runs every suite: relay, bus, tools, mcp, then git. It is
	// what `toolbus bench` runs when no suite is named.
	SuiteAll = "all"
)

// Suites lists the suite names Options.Suite accepts.
var Suites = []string{SuiteRelay, SuiteBus, SuiteTools, SuiteMCP, SuiteGit, SuiteAll}

// ValidSuite reports whether name is a suite, "" (the default) included.
func ValidSuite(name string) bool {
	return name == "" || slices.Contains(Suites, name)
}

// suitePlan returns the workloads of suite that compare the toolbus relay
// with bare khatru, in the order they run, and adds the notes that qualify
// their numbers to rep. The direct suites' workloads are directPlan's.
func suitePlan(suite string, c *crew, bc *busCrew, sz sizes, rep *Report) ([]workload, error) {
	if !ValidSuite(suite) {
		return nil, fmt.Errorf("unknown suite %q (want one of %v)", suite, Suites)
	}
	suite = orAll(suite)
	var ws []workload
	if suite == SuiteRelay || suite == SuiteAll {
		ws = append(ws, plan(c, sz)...)
		rep.Notes = append(rep.Notes, relayNotes(sz)...)
	}
	if suite == SuiteBus || suite == SuiteAll {
		ws = append(ws, busPlan(bc, sz)...)
		rep.Notes = append(rep.Notes, busNotes(sz)...)
	}
	return ws, nil
}

// orAll maps the unnamed suite to SuiteAll.
func orAll(suite string) string {
	if suite == "" {
		return SuiteAll
	}
	return suite
}
