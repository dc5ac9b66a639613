package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// conformanceTimeout bounds the whole suite run; it takes seconds on a
// quiet machine, but each scenario may wait for a timeout of its own.
const conformanceTimeout = 5 * time.Minute

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string          `json:"errorMessage,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
}

// scenarioResult is the outcome of one scenario.
type scenarioResult struct {
	Checks []conformanceCheck
}

// Failed applies the suite's own rule (as for its --expected-failures): a
// scenario fails when any check is a FAILURE or a WARNING.
func (r scenarioResult) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			return true
		}
	}
	return false
}

// Why lists the failing checks' messages (their details when a check has
// no message, as the suite's warnings often do).
func (r scenarioResult) Why() string {
	var out []string
	for _, c := range r.Checks {
		if c.Status != "FAILURE" && c.Status != "WARNING" {
			continue
		}
		msg := c.ErrorMessage
		if msg == "" {
			msg = string(c.Details[:min(len(c.Details), 500)])
		}
		out = append(out, c.Status+" "+c.ID+": "+msg)
	}
	return strings.Join(out, "; ")
}

// conformanceCommand runs the suite's CLI with args in dir.
func conformanceCommand(ctx context.Context, node, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, node, append([]string{conformanceCLI()}, args...)...)
	cmd.Dir = dir
	return cmd
}

// listServerScenarios returns every server scenario the suite has (the
// list includes the pending ones, which --suite all runs too).
func listServerScenarios(t *testing.T, node string) []string {
	t.Helper()
	out, err := conformanceCommand(context.Background(), node, t.TempDir(), "list", "--server").Output()
	if err != nil {
		t.Fatalf("conformance list --server: %v", err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+)`).FindAllStringSubmatch(string(out), -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("conformance list --server printed no scenarios:\n%s", out)
	}
	return names
}

// runConformance runs every server scenario (--suite all) against url, with
// the baseline as the suite's own --expected-failures, and returns the
// results by scenario and the CLI's error (non-nil when its own baseline
// check failed).
func runConformance(t *testing.T, node, url, baselineYAML string) (map[string]scenarioResult, error) {
	t.Helper()
	dir := t.TempDir()
	outDir := filepath.Join(dir, "results")
	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	defer cancel()
	cmd := conformanceCommand(ctx, node, dir, "server", "--url", url, "--suite", "all",
		"--expected-failures", baselineYAML, "-o", outDir)
	raw, runErr := cmd.CombinedOutput()
	out := ansiColor.ReplaceAllString(string(raw), "") // the CLI always colours
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		t.Logf("conformance suite output (tail):\n%s", out[i:])
	} else {
		t.Logf("conformance suite output:\n%s", out)
	}
	if ctx.Err() != nil {
		t.Fatalf("conformance suite did not finish within %v", conformanceTimeout)
	}
	return readConformanceResults(t, outDir), runErr
}

var ansiColor = regexp.MustCompile("\x1b\\[[0-9;]*m")

// resultDir is how the suite names a scenario's results directory:
// server-<scenario>-<ISO timestamp with - for : and .>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

func readConformanceResults(t *testing.T, outDir string) map[string]scenarioResult {
	t.Helper()
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatalf("conformance results: %v", err)
	}
	results := map[string]scenarioResult{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		var r scenarioResult
		raw, err := os.ReadFile(filepath.Join(outDir, e.Name(), "checks.json"))
		if err == nil {
			err = json.Unmarshal(raw, &r.Checks)
		}
		if err != nil {
			r.Checks = []conformanceCheck{{ID: "checks.json", Status: "FAILURE", ErrorMessage: err.Error()}}
		}
		results[m[1]] = r
	}
	return results
}

// scenarioTable is a one-line-per-scenario summary for the test log.
func scenarioTable(results map[string]scenarioResult, baseline map[string]string) string {
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		verdict := "pass"
		if results[n].Failed() {
			verdict = "FAIL"
		}
		if reason, ok := baseline[n]; ok {
			verdict += " (baseline: " + reason + ")"
		}
		b.WriteString("  " + n + ": " + verdict + "\n")
	}
	return b.String()
}
