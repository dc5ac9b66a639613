package mcpadapter

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mirrorState is what the mirror currently exposes, by name / URI.
type mirrorState struct {
	tools, resources, templates, prompts []string
}

// mirror makes the local server expose exactly what the upstream lists:
// current entries are (re)added in place, vanished ones removed, so a call
// racing a list change never sees its tool missing.
func (b *Bridge) mirror(ctx context.Context, cs *mcp.ClientSession) error {
	init := cs.InitializeResult()
	var next mirrorState
	if init.Capabilities.Tools != nil {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("upstream tools/list: %w", err)
		}
		for _, t := range res.Tools {
			if b.addTool(t) {
				next.tools = append(next.tools, t.Name)
			}
		}
	}
	if init.Capabilities.Resources != nil {
		next.resources, next.templates = b.mirrorResources(ctx, cs)
	}
	if init.Capabilities.Prompts != nil {
		next.prompts = b.mirrorPrompts(ctx, cs)
	}
	b.mu.Lock()
	prev := b.mirrored
	b.mirrored = next
	b.mu.Unlock()
	b.server.RemoveTools(gone(prev.tools, next.tools)...)
	b.server.RemoveResources(gone(prev.resources, next.resources)...)
	b.server.RemoveResourceTemplates(gone(prev.templates, next.templates)...)
	b.server.RemovePrompts(gone(prev.prompts, next.prompts)...)
	return nil
}

// gone lists what was in prev and is not in next.
func gone(prev, next []string) []string {
	var out []string
	for _, p := range prev {
		if !slices.Contains(next, p) {
			out = append(out, p)
		}
	}
	return out
}

// addTool mirrors one upstream tool; go-sdk panics on definitions it
// rejects, and an upstream's definitions are not ours to trust.
func (b *Bridge) addTool(t *mcp.Tool) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Warn("skipping upstream tool", "tool", t.Name, "err", r)
			ok = false
		}
	}()
	copy := *t
	copy.Meta = nil
	b.server.AddTool(&copy, b.callTool(t.Name))
	return true
}

func (b *Bridge) mirrorResources(ctx context.Context, cs *mcp.ClientSession) (uris, templates []string) {
	if res, err := cs.ListResources(ctx, nil); err == nil {
		for _, r := range res.Resources {
			copy := *r
			copy.Meta = nil
			b.server.AddResource(&copy, b.readResource)
			uris = append(uris, r.URI)
		}
	}
	if res, err := cs.ListResourceTemplates(ctx, nil); err == nil {
		for _, t := range res.ResourceTemplates {
			copy := *t
			copy.Meta = nil
			b.server.AddResourceTemplate(&copy, b.readResource)
			templates = append(templates, t.URITemplate)
		}
	}
	return uris, templates
}

func (b *Bridge) mirrorPrompts(ctx context.Context, cs *mcp.ClientSession) []string {
	var names []string
	if res, err := cs.ListPrompts(ctx, nil); err == nil {
		for _, p := range res.Prompts {
			copy := *p
			copy.Meta = nil
			b.server.AddPrompt(&copy, b.getPrompt)
			names = append(names, p.Name)
		}
	}
	return names
}
