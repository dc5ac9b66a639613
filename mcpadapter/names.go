package mcpadapter

import (
	"fmt"
	"slices"
	"strings"
)

// maxToolName keeps exposed names within what agents accept: Claude's API
// allows ^[a-zA-Z0-9_-]{1,64}$, stricter than MCP's 128 characters.
const maxToolName = 64

// sanitizeName maps s onto [A-Za-z0-9_-]: anything else becomes '_'.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// binding is one exposed tool: which worker and which of its tools.
type binding struct {
	worker string // pubkey
	tool   string // the worker's tool name
}

// workerTools is what naming needs to know about one worker.
type workerTools struct {
	pubkey string
	name   string
	tools  []string
}

// exposedNames assigns every worker tool its `<worker>__<tool>` name. The
// result depends only on the input set, never on arrival order: workers
// whose names collide get a pubkey suffix, and remaining clashes (tool names
// that sanitise alike) get a numeric suffix in sorted order.
func exposedNames(workers []workerTools) map[string]binding {
	slices.SortFunc(workers, func(a, b workerTools) int { return strings.Compare(a.pubkey, b.pubkey) })
	byName := map[string]int{}
	for _, w := range workers {
		byName[workerLabel(w)]++
	}
	out := map[string]binding{}
	for _, w := range workers {
		label := workerLabel(w)
		if byName[label] > 1 {
			label = label + "-" + w.pubkey[:6]
		}
		tools := slices.Clone(w.tools)
		slices.Sort(tools)
		for _, t := range tools {
			out[uniqueName(out, joinName(label, sanitizeName(t)))] = binding{worker: w.pubkey, tool: t}
		}
	}
	return out
}

// flatNames names the tools of the one worker of flat mode (Options.Flat)
// by their own (sanitised) names, without the `<worker>__` prefix. With a
// single worker there is no cross-worker clash; tool names that sanitise
// alike get a numeric suffix in sorted order, as in exposedNames.
func flatNames(w workerTools) map[string]binding {
	tools := slices.Clone(w.tools)
	slices.Sort(tools)
	out := map[string]binding{}
	for _, t := range tools {
		name := sanitizeName(t)
		if name == "" {
			name = "tool"
		}
		out[uniqueName(out, name[:min(len(name), maxToolName)])] = binding{worker: w.pubkey, tool: t}
	}
	return out
}

func workerLabel(w workerTools) string {
	if l := sanitizeName(w.name); l != "" {
		return l
	}
	return w.pubkey[:12]
}

// joinName builds worker__tool, shortening the worker part to fit.
func joinName(worker, tool string) string {
	if tool == "" {
		tool = "tool"
	}
	room := maxToolName - len(tool) - 2
	if room < 4 {
		tool = tool[:maxToolName-2-4]
		room = 4
	}
	if len(worker) > room {
		worker = worker[:room]
	}
	return worker + "__" + tool
}

func uniqueName(taken map[string]binding, name string) string {
	if _, clash := taken[name]; !clash {
		return name
	}
	for i := 2; ; i++ {
		suffix := fmt.Sprintf("_%d", i)
		cand := name
		if len(cand)+len(suffix) > maxToolName {
			cand = cand[:maxToolName-len(suffix)]
		}
		if _, clash := taken[cand+suffix]; !clash {
			return cand + suffix
		}
	}
}
