package interop

import (
	"testing"
	"time"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// server scenarios) runs against `toolbus mcp --listen --flat`, whose one
// worker is the suite's everything-server bridged onto the bus with
// `toolbus bridge`: agent → stateless streamable HTTP → adapter → gift
// wraps through the relay → bridge → stdio → fixture. Every scenario must
// pass except those in conformance-baseline.json, and every scenario there
// must still fail (see README.md, "MCP conformance suite").
func TestConformanceSuite(t *testing.T) {
	node := requireConformance(t)
	baseline, baselineYAML := loadConformanceBaseline(t)
	scenarios := listServerScenarios(t, node)

	user, bridgeKey := testutil.NewKey(t), testutil.NewKey(t)
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, user.PublicKey(), bridgeKey.PublicKey())
	})
	startBridgeProcess(t, r, bridgeKey, "conformance", []string{buildConformanceFixture(t)})
	url := startFlatAdapter(t, r.URL, user, bridgeKey.PublicKey())

	start := time.Now()
	results, cliErr := runConformance(t, node, url, baselineYAML)
	t.Logf("%d scenarios in %v:\n%s", len(results), time.Since(start).Round(time.Millisecond),
		scenarioTable(results, baseline))
	judgeConformance(t, scenarios, results, baseline)
	if cliErr != nil && !t.Failed() {
		// Both verdicts read the same checks; a disagreement means the CLI
		// itself failed (crashed, or a check this test does not know).
		t.Errorf("the suite's own baseline check failed (%v) though every scenario matched the baseline", cliErr)
	}
}
