package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// conformanceBaseline is conformance-baseline.json: the server scenarios
// `toolbus mcp --listen` is known to fail, each with the reason.
type conformanceBaseline struct {
	// Suite is the @modelcontextprotocol/conformance version the baseline
	// was established with; a different installed version fails the test,
	// so that a suite upgrade makes someone look at the baseline again.
	Suite  string `json:"suite"`
	Server []struct {
		Scenario string `json:"scenario"`
		Reason   string `json:"reason"`
	} `json:"server"`
}

// loadConformanceBaseline reads the baseline and writes it in the suite's
// own --expected-failures format; it returns scenario -> reason and the
// path of that YAML file.
func loadConformanceBaseline(t *testing.T) (map[string]string, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(JSDir(), "..", "conformance-baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b conformanceBaseline
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("conformance-baseline.json: %v", err)
	}
	if v := installedConformanceVersion(t); v != b.Suite {
		t.Fatalf("conformance-baseline.json is for suite %q but %q is installed: rerun and update the baseline", b.Suite, v)
	}
	reasons := map[string]string{}
	names := []string{}
	for _, e := range b.Server {
		if e.Scenario == "" || strings.TrimSpace(e.Reason) == "" {
			t.Fatalf("conformance-baseline.json: every entry needs a scenario and a reason: %+v", e)
		}
		reasons[e.Scenario] = e.Reason
		names = append(names, e.Scenario)
	}
	// JSON is YAML: {"server": [...]} is a valid expected-failures file.
	yml, _ := json.Marshal(map[string][]string{"server": names})
	path := filepath.Join(t.TempDir(), "conformance-baseline.yml")
	if err := os.WriteFile(path, yml, 0o644); err != nil {
		t.Fatal(err)
	}
	return reasons, path
}

func installedConformanceVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(conformanceCLI())), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	json.Unmarshal(raw, &pkg)
	return pkg.Version
}

// judgeConformance fails the test for every scenario that failed outside
// the baseline, every baseline entry that now passes (the baseline must stay
// honest), every baseline entry the suite does not have, and every listed
// scenario that left no results.
func judgeConformance(t *testing.T, scenarios []string, results map[string]scenarioResult, baseline map[string]string) {
	t.Helper()
	for _, name := range scenarios {
		r, ok := results[name]
		_, expected := baseline[name]
		switch {
		case !ok:
			t.Errorf("scenario %s left no results", name)
		case r.Failed() && !expected:
			t.Errorf("scenario %s failed (not in the baseline): %s", name, r.Why())
		case !r.Failed() && expected:
			t.Errorf("scenario %s passes but is in conformance-baseline.json: remove it", name)
		}
	}
	for name := range baseline {
		if !slices.Contains(scenarios, name) {
			t.Errorf("conformance-baseline.json lists %s, which the suite does not have", name)
		}
	}
}
