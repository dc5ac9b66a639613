package tools

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Error codes of a failed tool call. They mirror the bus package's codes
// (spec/PROTOCOL.md §7) without importing it: tools must stay independent
// of Nostr.
const (
	codeInvalidParams = "invalid_params"
	codeNotFound      = "not_found"
	codeUnauthorized  = "unauthorized"
	codeInternal      = "internal"
)

// toolErrorBody is structuredContent.error of a failed call.
type toolErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// toolError builds a failed tool result: isError, "<code>: <message>" as
// text for the model, and {error: {code, message}} for programs.
func toolError(code, msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: code + ": " + msg}},
		StructuredContent: map[string]any{"error": toolErrorBody{Code: code, Message: msg}},
	}
}

// invalidf is the common "bad argument or over a limit" failure.
func invalidf(format string, args ...any) *mcp.CallToolResult {
	return toolError(codeInvalidParams, fmt.Sprintf(format, args...))
}

// textResult is a successful result with one text content.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// fileError classifies a file-system error for the model: leaving the
// workdir and permission problems are "unauthorized", a missing file is
// "not_found", anything else is "internal". shown is the path as the
// caller wrote it, so messages never depend on where the workdir lives.
func fileError(err error, shown string) *mcp.CallToolResult {
	err = rootError(err, shown) // os.Root's escape error, reworded
	switch {
	case errors.Is(err, ErrOutsideWorkdir):
		return toolError(codeUnauthorized, err.Error())
	case errors.Is(err, fs.ErrNotExist):
		return toolError(codeNotFound, "no such file: "+shown)
	case errors.Is(err, fs.ErrPermission):
		return toolError(codeUnauthorized, "permission denied: "+shown)
	}
	return toolError(codeInternal, fmt.Sprintf("%s: %v", shown, err))
}
