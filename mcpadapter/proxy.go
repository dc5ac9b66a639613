package mcpadapter

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

// proxy forwards one exposed tool to its worker over the bus. Progress
// from the worker reaches the agent under the agent's own token; the
// agent cancelling cancels the bus call, which tells the worker.
func (a *Adapter) proxy(b binding) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, a.opts.CallTimeout)
		defer cancel()
		var opts []bus.CallOption
		if tok := req.Params.GetProgressToken(); tok != nil {
			opts = append(opts, bus.WithProgress(func(p *mcp.ProgressNotificationParams) {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
					Progress: p.Progress, Total: p.Total, Message: p.Message})
			}))
		}
		var args any = map[string]any{}
		if len(req.Params.Arguments) > 0 {
			args = req.Params.Arguments
		}
		res, err := a.opts.Client.CallTool(ctx, b.worker, b.tool, args, opts...)
		if err != nil {
			return failure(err), nil
		}
		res.Meta = nil // the worker's _meta (identity, tracing) stays on the bus
		return res, nil
	}
}

// failure turns a call that produced no result into a classified result.
func failure(err error) *mcp.CallToolResult {
	var be *bus.Error
	if errors.As(err, &be) {
		return bus.ToolError(be.Code, be.Message, be.RetryAfter)
	}
	if errors.Is(err, context.Canceled) {
		return bus.ToolError(bus.CodeUnavailable, "call cancelled", 0)
	}
	return bus.ToolError(bus.CodeUnavailable, err.Error(), 0)
}
