package mcpadapter

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

var errUpstreamDown = errors.New("the bridged MCP server is restarting")

// callTool forwards a call to the upstream. A caller asking for progress
// gets it under its own token (the upstream sees one the bridge minted);
// the caller's cancellation cancels the upstream call.
func (b *Bridge) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cs := b.upstream.Load()
		if cs == nil {
			return bus.ToolError(bus.CodeUnavailable, errUpstreamDown.Error(), 0), nil
		}
		params := &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments}
		if tok := req.Params.GetProgressToken(); tok != nil {
			upTok, done := b.routeProgress(req.Session, tok)
			defer done()
			params.SetProgressToken(upTok)
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return nil, err // a JSON-RPC error: bus.Server classifies it
		}
		res.Meta = nil // the upstream's identity stays with the bridge
		stripContentMeta(res.Content)
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
		for _, c := range res.Contents {
			if c != nil {
				c.Meta = nil
			}
		}
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
		for _, m := range res.Messages {
			if m != nil {
				stripContentMeta([]mcp.Content{m.Content})
			}
		}
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

// stripContentMeta drops the _meta of content items (and of an embedded
// resource's contents): like a result's own _meta, it is the upstream's,
// not something to pass on under the bridge's key.
func stripContentMeta(content []mcp.Content) {
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			c.Meta = nil
		case *mcp.ImageContent:
			c.Meta = nil
		case *mcp.AudioContent:
			c.Meta = nil
		case *mcp.ResourceLink:
			c.Meta = nil
		case *mcp.EmbeddedResource:
			c.Meta = nil
			if c.Resource != nil {
				c.Resource.Meta = nil
			}
		case *mcp.ToolUseContent:
			c.Meta = nil
		case *mcp.ToolResultContent:
			c.Meta = nil
			stripContentMeta(c.Content)
		}
	}
}
