package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// StdioResult is what mcp-stdio-client.mjs prints.
type StdioResult struct {
	OK           bool        `json:"ok"`
	Error        string      `json:"error,omitempty"`
	Instructions string      `json:"instructions,omitempty"`
	Steps        []StdioStep `json:"steps"`
}

// StdioStep is one step's outcome.
type StdioStep struct {
	Op        string            `json:"op"`
	Name      string            `json:"name,omitempty"`
	OK        bool              `json:"ok"`
	Tools     []string          `json:"tools,omitempty"`
	Result    json.RawMessage   `json:"result,omitempty"`
	Progress  []json.RawMessage `json:"progress,omitempty"`
	Cancelled bool              `json:"cancelled,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// RunStdioClient runs the official MCP TypeScript SDK client against the
// stdio MCP server started by command (run in cwd), performing actions.
func RunStdioClient(t testing.TB, command []string, cwd string, actions string) (StdioResult, error) {
	t.Helper()
	RequireJS(t)
	cmdJSON, _ := json.Marshal(command)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(JSDir(), "mcp-stdio-client.mjs"))
	cmd.Env = scriptEnv(map[string]string{"SERVER_CMD": string(cmdJSON), "SERVER_CWD": cwd, "ACTIONS": actions})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	t.Logf("mcp-stdio-client stderr:\n%s", stderr.String())
	var res StdioResult
	if err := json.Unmarshal([]byte(lastJSONLine(stdout.String())), &res); err != nil {
		return res, fmt.Errorf("no result from mcp-stdio-client.mjs (%v): %s", runErr, stdout.String())
	}
	if runErr != nil {
		return res, fmt.Errorf("mcp-stdio-client.mjs: %v: %s", runErr, res.Error)
	}
	return res, nil
}
