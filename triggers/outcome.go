package triggers

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

// outcome is how a call ended: a result from the worker, or a problem
// (no call made, no result, refused).
type outcome struct {
	call       *callRecord
	result     *mcp.CallToolResult
	problem    string
	retry      bool // refused before running: calling again is safe
	retryAfter time.Duration
	finished   time.Time
}

// shellResult is the part of a shell-like structured result the summary
// uses; ExitCode is nil for other tools.
type shellResult struct {
	ExitCode *int   `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
}

// resultOutcome reads a worker's response to a tools/call.
func resultOutcome(rec *callRecord, resp *jsonrpc.Response) *outcome {
	o := &outcome{call: rec, finished: time.Now()}
	if resp.Error != nil {
		o.problem = "the worker refused the call: " + resp.Error.Error()
		if we, ok := resp.Error.(*jsonrpc.Error); ok && we.Code == bus.RPCRateLimited {
			o.retry = true
		}
		return o
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		o.problem = "the worker sent an invalid result: " + err.Error()
		return o
	}
	o.result = &res
	if be := bus.ResultError(&res); be != nil && be.Code == bus.CodeRateLimited {
		o.problem, o.retry, o.retryAfter = be.Error(), true, be.RetryAfter
	}
	return o
}

// shell returns the shell-like view of the result, if it has an exit code.
func (o *outcome) shell() (shellResult, bool) {
	var s shellResult
	if o.result == nil || o.result.StructuredContent == nil {
		return s, false
	}
	raw, err := json.Marshal(o.result.StructuredContent)
	if err != nil || json.Unmarshal(raw, &s) != nil || s.ExitCode == nil {
		return s, false
	}
	return s, true
}

// ok reports success: a result that is not an error and, for a shell-like
// tool, exit code 0 without a timeout.
func (o *outcome) ok() bool {
	if o.result == nil || o.result.IsError || o.problem != "" {
		return false
	}
	if s, isShell := o.shell(); isShell {
		return *s.ExitCode == 0 && !s.TimedOut
	}
	return true
}

// reason is the short explanation after the headline ("exit 2").
func (o *outcome) reason() string {
	if o.result == nil {
		return o.problem
	}
	if s, isShell := o.shell(); isShell {
		r := fmt.Sprintf("exit %d", *s.ExitCode)
		if s.TimedOut {
			r += ", timed out"
		}
		return r
	}
	if be := bus.ResultError(o.result); be != nil {
		return firstLine(be.Error())
	}
	return ""
}

// details are the output tails shown under the headline.
func (o *outcome) details(lines int) []block {
	if s, isShell := o.shell(); isShell {
		return []block{{"stdout", tail(s.Stdout, lines)}, {"stderr", tail(s.Stderr, lines)}}
	}
	if o.result == nil {
		return nil
	}
	var texts []string
	for _, c := range o.result.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	if o.result.IsError && !strings.Contains(text, "\n") {
		return nil // the reason already says it
	}
	return []block{{"output", tail(text, lines)}}
}

// block is a titled piece of output.
type block struct{ title, text string }

// maxBlockBytes bounds each output tail in a message.
const maxBlockBytes = 3000

// tail keeps the last n lines of s, and at most maxBlockBytes of them.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	out := strings.Join(ls, "\n")
	if len(out) > maxBlockBytes {
		out = out[len(out)-maxBlockBytes:]
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
		out = strings.ToValidUTF8(out, "")
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return cut(s, 300)
}
