package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
)

// Flat mode (Options.Flat) presents the one worker as if the agent talked
// to it directly. Besides its tools, the adapter mirrors the resources,
// resource templates and prompts the worker announces (kinds 11318-11320)
// and forwards reads, prompt gets and completions to it over the bus. The
// capabilities the agent sees follow what is mirrored (go-sdk advertises
// resources and prompts once some exist).

// flatState is what flat mode currently mirrors, by URI, URI template or
// name, to tell changes from repeats.
type flatState struct {
	resources map[string]*mcp.Resource
	templates map[string]*mcp.ResourceTemplate
	prompts   map[string]*mcp.Prompt
}

// syncFlat makes the mirrored lists match the worker's latest
// announcements. It runs under a.mu, from sync.
func (a *Adapter) syncFlat() {
	res, tmpl, prompts := a.dir.flatLists()
	a.flat.resources = mirrorList(a.log, a.flat.resources, res.Resources,
		func(r *mcp.Resource) string { return r.URI },
		func(r *mcp.Resource) { c := *r; c.Meta = nil; a.server.AddResource(&c, a.readResource) },
		a.server.RemoveResources)
	a.flat.templates = mirrorList(a.log, a.flat.templates, tmpl.ResourceTemplates,
		func(t *mcp.ResourceTemplate) string { return t.URITemplate },
		func(t *mcp.ResourceTemplate) {
			c := *t
			c.Meta = nil
			a.server.AddResourceTemplate(&c, a.readResource)
		},
		a.server.RemoveResourceTemplates)
	a.flat.prompts = mirrorList(a.log, a.flat.prompts, prompts.Prompts,
		func(p *mcp.Prompt) string { return p.Name },
		func(p *mcp.Prompt) { c := *p; c.Meta = nil; a.server.AddPrompt(&c, a.getPrompt) },
		a.server.RemovePrompts)
}

// mirrorList removes what vanished from want and (re)adds what is new or
// changed, returning the new state. An announcement is untrusted input and
// go-sdk panics on URIs it rejects, so a bad entry is skipped, not fatal.
func mirrorList[T any](log *slog.Logger, have map[string]*T, want []*T, key func(*T) string, add func(*T), remove func(...string)) map[string]*T {
	next := map[string]*T{}
	for _, v := range want {
		if v != nil && key(v) != "" {
			next[key(v)] = v
		}
	}
	var gone []string
	for k := range have {
		if _, ok := next[k]; !ok {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		remove(gone...)
	}
	out := map[string]*T{}
	for k, v := range next {
		if old, ok := have[k]; ok && reflect.DeepEqual(old, v) {
			out[k] = v
			continue
		}
		if err := safely(func() { add(v) }); err != nil {
			log.Warn("skipping a worker list entry", "entry", k, "err", err)
			remove(k) // a changed entry that no longer installs must not linger
			continue
		}
		out[k] = v
	}
	return out
}

func safely(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid definition: %v", r)
		}
	}()
	f()
	return nil
}

func (a *Adapter) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := a.forward(ctx, "resources/read", &mcp.ReadResourceParams{URI: req.Params.URI}, &res); err != nil {
		return nil, err
	}
	res.Meta = nil // the worker's _meta stays on the bus, as for tools
	return &res, nil
}

func (a *Adapter) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var res mcp.GetPromptResult
	params := &mcp.GetPromptParams{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if err := a.forward(ctx, "prompts/get", params, &res); err != nil {
		return nil, err
	}
	res.Meta = nil
	return &res, nil
}

// complete forwards completion/complete; it is the adapter's
// CompletionHandler in flat mode only.
func (a *Adapter) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var res mcp.CompleteResult
	params := &mcp.CompleteParams{Argument: req.Params.Argument, Context: req.Params.Context, Ref: req.Params.Ref}
	if err := a.forward(ctx, "completion/complete", params, &res); err != nil {
		return nil, err
	}
	res.Meta = nil
	return &res, nil
}

// forward sends one request to flat mode's worker and decodes its result.
func (a *Adapter) forward(ctx context.Context, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(ctx, a.opts.CallTimeout)
	defer cancel()
	raw, err := a.opts.Client.Call(ctx, a.opts.Workers[0], method, params)
	if err != nil {
		return rpcError(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "worker sent an invalid " + method + " result: " + err.Error()}
	}
	return nil
}

// rpcError gives a failed forward a JSON-RPC code the agent can act on
// (go-sdk would send a plain error with code 0); the message keeps the bus
// classification.
func rpcError(err error) error {
	var be *bus.Error
	if !errors.As(err, &be) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	code := int64(jsonrpc.CodeInternalError)
	switch be.Code {
	case bus.CodeInvalidParams:
		code = jsonrpc.CodeInvalidParams
	case bus.CodeNotFound:
		code = jsonrpc.CodeMethodNotFound
	}
	return &jsonrpc.Error{Code: code, Message: be.Error()}
}
