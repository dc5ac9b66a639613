package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Error codes of a failed tool call, carried in a result's
// structuredContent.error.code (tool failures) or in *Error (transport
// failures seen by a caller).
const (
	CodeInvalidParams = "invalid_params"
	CodeNotFound      = "not_found"
	CodeUnauthorized  = "unauthorized"
	CodeRateLimited   = "rate_limited"
	CodeTimeout       = "timeout"
	CodeUnavailable   = "unavailable"
	CodeInternal      = "internal"
)

// JSON-RPC error codes toolbus uses for non-tool requests it refuses.
const (
	// RPCUnauthorized answers a request from a caller outside the allowlist.
	RPCUnauthorized = -32001
	// RPCRateLimited answers a request over the caller's quota.
	RPCRateLimited = -32002
)

// Error is a classified failure of a bus call as seen by the caller: the
// call did not produce a result (timeout, relay refused, worker refused a
// non-tool request). Tool failures are results, not Errors.
type Error struct {
	Code       string
	Message    string
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s: %s (retry after %d ms)", e.Code, e.Message, e.RetryAfter.Milliseconds())
	}
	return e.Code + ": " + e.Message
}

// CodeOf returns the classification of err, or "" when err is not an *Error.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// toolErrorBody is structuredContent.error.
type toolErrorBody struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// ToolError builds the result of a failed tool call: isError, the message
// as text for the model, and {error: {code, message, retry_after_ms?}} as
// structured content for programs.
func ToolError(code, message string, retryAfter time.Duration) *mcp.CallToolResult {
	body := toolErrorBody{Code: code, Message: message, RetryAfterMS: retryAfter.Milliseconds()}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: code + ": " + message}},
		StructuredContent: map[string]any{"error": body},
	}
}

// ResultError reads the classified error of a failed tool result: the
// structured one when present, else CodeInternal with the text content. It
// returns nil for a successful result.
func ResultError(res *mcp.CallToolResult) *Error {
	if res == nil || !res.IsError {
		return nil
	}
	if b, ok := structuredError(res.StructuredContent); ok {
		return &Error{Code: b.Code, Message: b.Message, RetryAfter: time.Duration(b.RetryAfterMS) * time.Millisecond}
	}
	return &Error{Code: CodeInternal, Message: resultText(res)}
}

func structuredError(sc any) (toolErrorBody, bool) {
	var wrapper struct {
		Error *toolErrorBody `json:"error"`
	}
	raw, err := json.Marshal(sc)
	if err != nil || json.Unmarshal(raw, &wrapper) != nil || wrapper.Error == nil || wrapper.Error.Code == "" {
		return toolErrorBody{}, false
	}
	return *wrapper.Error, true
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// classifyRPC maps a JSON-RPC error of a tools/call to a tool error code.
func classifyRPC(e *jsonrpc.Error) string {
	switch {
	case e.Code == jsonrpc.CodeMethodNotFound,
		e.Code == jsonrpc.CodeInvalidParams && strings.Contains(e.Message, "unknown tool"):
		return CodeNotFound
	case e.Code == jsonrpc.CodeInvalidParams:
		return CodeInvalidParams
	case e.Code == RPCUnauthorized:
		return CodeUnauthorized
	case e.Code == RPCRateLimited:
		return CodeRateLimited
	default:
		return CodeInternal
	}
}

// classifyResult gives an unclassified failed tool result a code: go-sdk
// reports argument validation failures as plain error results.
func classifyResult(res *mcp.CallToolResult) {
	if !res.IsError {
		return
	}
	if _, ok := structuredError(res.StructuredContent); ok {
		return
	}
	text := resultText(res)
	code := CodeInternal
	if strings.HasPrefix(text, `validating "arguments"`) || strings.Contains(text, "cannot unmarshal") ||
		strings.HasPrefix(text, "invalid character") {
		code = CodeInvalidParams
	}
	res.StructuredContent = map[string]any{"error": toolErrorBody{Code: code, Message: text}}
}
