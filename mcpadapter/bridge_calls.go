package mcpadapter

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

var errUpstreamDown = errors.New("the bridged MCP server is restarting")

// callTool forwards a call to the upstream. The caller's progress token is
// passed on, and upstream progress is routed back to the caller; the
// caller's cancellation cancels the upstream call.
func (b *Bridge) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cs := b.upstream.Load()
		if cs == nil {
			return bus.ToolError(bus.CodeUnavailable, errUpstreamDown.Error(), 0), nil
		}
		params := &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments}
		if tok := req.Params.GetProgressToken(); tok != nil {
			params.SetProgressToken(tok)
			b.mu.Lock()
			b.progress[tok] = req.Session
			b.mu.Unlock()
			defer func() {
				b.mu.Lock()
				delete(b.progress, tok)
				b.mu.Unlock()
			}()
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return nil, err // a JSON-RPC error: bus.Server classifies it
		}
		res.Meta = nil // the upstream's identity stays with the bridge
		return res, nil
	}
}

func (b *Bridge) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	cs := b.upstream.Load()
	if cs == nil {
		return nil, errUpstreamDown
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: req.Params.URI})
	if err == nil {
		res.Meta = nil
	}
	return res, err
}

func (b *Bridge) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	cs := b.upstream.Load()
	if cs == nil {
		return nil, errUpstreamDown
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
	if err == nil {
		res.Meta = nil
	}
	return res, err
}

// complete forwards completion/complete. An upstream without completions
// gets no request: it would only answer "method not found" later.
func (b *Bridge) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	cs := b.upstream.Load()
	if cs == nil {
		return nil, errUpstreamDown
	}
	if cs.InitializeResult().Capabilities.Completions == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the bridged MCP server has no completions"}
	}
	res, err := cs.Complete(ctx, &mcp.CompleteParams{Argument: req.Params.Argument, Context: req.Params.Context, Ref: req.Params.Ref})
	if err == nil {
		res.Meta = nil
	}
	return res, err
}
