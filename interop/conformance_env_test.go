package interop

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// The conformance suite's dist code needs Node.js 22 (it imports fs.globSync).
// The system may have 20, so interop/js pins the npm package `node` (a
// platform binary fetched from the npm registry) as a devDependency.
const conformanceNodeMajor = 22

// conformanceFixture is the everything-server of the suite's server
// scenarios (tools test_simple_text, test_image_content, …, resources
// test://…, prompts test_simple_prompt, …). The Go SDK ships one in its
// module, which go.mod already requires, so it builds offline from the
// module cache at the pinned version.
const conformanceFixture = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// conformanceCLI is the suite's entry point inside interop/js.
func conformanceCLI() string {
	return filepath.Join(JSDir(), "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
}

// requireConformance returns a Node.js ≥ 22 to run the suite with: the one
// from the npm package `node`, else the one in PATH. It skips (or fails with
// TOOLBUS_REQUIRE_JS=1) when the suite or such a node is missing.
func requireConformance(t *testing.T) string {
	t.Helper()
	RequireJS(t)
	missing := ""
	node, err := conformanceNode()
	if err != nil {
		missing = err.Error()
	} else if _, err := os.Stat(conformanceCLI()); err != nil {
		missing = "@modelcontextprotocol/conformance is not installed in " + JSDir() + "/node_modules"
	}
	if missing == "" {
		return node
	}
	msg := "MCP conformance suite unavailable: " + missing + " (run `cd interop/js && npm ci`)"
	if os.Getenv(RequireEnvVar) == "1" {
		t.Fatalf("%s; %s=1 forbids skipping", msg, RequireEnvVar)
	}
	t.Skip(msg)
	return ""
}

func conformanceNode() (string, error) {
	candidates := []string{filepath.Join(JSDir(), "node_modules", "node", "bin", "node")}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	var problems []string
	for _, c := range candidates {
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		m := regexp.MustCompile(`^v(\d+)\.`).FindStringSubmatch(strings.TrimSpace(string(out)))
		if m == nil {
			continue
		}
		if major, _ := strconv.Atoi(m[1]); major >= conformanceNodeMajor {
			return c, nil
		}
		problems = append(problems, fmt.Sprintf("%s is %s", c, strings.TrimSpace(string(out))))
	}
	return "", fmt.Errorf("no Node.js %d+ (%s)", conformanceNodeMajor, strings.Join(problems, "; "))
}

// buildConformanceFixture builds the everything-server into a temp dir.
func buildConformanceFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	cmd := exec.Command("go", "build", "-o", bin, conformanceFixture)
	cmd.Dir = testutil.ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", conformanceFixture, err, out)
	}
	return bin
}

// startFlatAdapter runs `toolbus mcp --listen 127.0.0.1:0 --flat` for the
// one worker, as key, and returns its URL once it serves: the port is the
// one the adapter reports, so no other process can take it in between.
func startFlatAdapter(t *testing.T, relayURL string, key *signer.Local, worker string) string {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "user.key")
	if err := signer.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "mcp", "--relay", relayURL, "--key-file", keyFile,
		"--listen", "127.0.0.1:0", "--workers", worker, "--flat")
	// Its log goes to the test log (nothing on stderr is waited for).
	cmd.Stderr = &lineWaiter{t: t, ready: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			t.Logf("toolbus mcp: %s", sc.Text())
			if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
				urls <- strings.TrimSpace(url)
			}
		}
		close(urls)
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			t.Fatal("toolbus mcp exited before listening")
		}
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("toolbus mcp not listening within 30s")
	}
	return ""
}
