package mcpadapter

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
)

// directory follows the relay: workers' announcements (11316 name and
// capabilities, 11317 tools) and the workspace membership list (13534),
// and turns them into the set of exposed tools.
type directory struct {
	relayKey string
	fixed    map[string]bool // configured workers; nil = follow members
	flat     bool            // Options.Flat: one worker, unprefixed names, its lists too

	mu      sync.Mutex
	workers map[string]*announced
	members map[string]bool
	at      nostr.Timestamp // of the membership list in use
}

// announced is what one worker published.
type announced struct {
	name    string
	tools   []*mcp.Tool
	nameAt  nostr.Timestamp
	toolsAt nostr.Timestamp
	lists   map[int]listEvent // flat mode: resources, templates, prompts by kind
}

// listEvent is the newest announcement of one list kind.
type listEvent struct {
	content string
	at      nostr.Timestamp
}

// flatListKinds are the announcements flat mode mirrors besides tools.
var flatListKinds = []int{bus.KindResourcesList, bus.KindResourceTemplatesList, bus.KindPromptsList}

func newDirectory(relayKey string, workers []string, flat bool) *directory {
	d := &directory{relayKey: relayKey, workers: map[string]*announced{}, flat: flat}
	if len(workers) > 0 {
		d.fixed = map[string]bool{}
		for _, w := range workers {
			d.fixed[w] = true
		}
	}
	return d
}

// filters are the discovery subscription.
func (d *directory) filters() nostr.Filters {
	f := nostr.Filter{Kinds: []int{bus.KindServerAnnouncement, bus.KindToolsList}}
	if d.flat {
		f.Kinds = append(f.Kinds, flatListKinds...)
	}
	for w := range d.fixed {
		f.Authors = append(f.Authors, w)
	}
	fs := nostr.Filters{f}
	if d.fixed == nil && d.relayKey != "" {
		fs = append(fs, nostr.Filter{Kinds: []int{bus.KindMembershipList}, Authors: []string{d.relayKey}})
	}
	return fs
}

// apply records one event and reports whether the exposed set may change.
func (d *directory) apply(ev *nostr.Event) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch ev.Kind {
	case bus.KindMembershipList:
		if ev.PubKey != d.relayKey || ev.CreatedAt < d.at {
			return false
		}
		d.at, d.members = ev.CreatedAt, map[string]bool{}
		for _, t := range ev.Tags {
			if len(t) >= 2 && t[0] == "member" {
				d.members[t[1]] = true
			}
		}
		return true
	case bus.KindServerAnnouncement:
		w := d.worker(ev.PubKey)
		if ev.CreatedAt < w.nameAt {
			return false
		}
		w.nameAt, w.name = ev.CreatedAt, announcedName(ev)
		return true
	case bus.KindToolsList:
		w := d.worker(ev.PubKey)
		var list mcp.ListToolsResult
		if ev.CreatedAt < w.toolsAt || json.Unmarshal([]byte(ev.Content), &list) != nil {
			return false
		}
		w.toolsAt, w.tools = ev.CreatedAt, list.Tools
		return true
	case bus.KindResourcesList, bus.KindResourceTemplatesList, bus.KindPromptsList:
		w := d.worker(ev.PubKey)
		if !d.flat || ev.CreatedAt < w.lists[ev.Kind].at {
			return false
		}
		if w.lists == nil {
			w.lists = map[int]listEvent{}
		}
		w.lists[ev.Kind] = listEvent{content: ev.Content, at: ev.CreatedAt}
		return true
	}
	return false
}

// flatLists decodes what flat mode's worker announced besides tools; a
// list that is missing or undecodable is empty.
func (d *directory) flatLists() (res mcp.ListResourcesResult, tmpl mcp.ListResourceTemplatesResult, prompts mcp.ListPromptsResult) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for pk, w := range d.workers {
		if !d.callable(pk) {
			continue
		}
		json.Unmarshal([]byte(w.lists[bus.KindResourcesList].content), &res)
		json.Unmarshal([]byte(w.lists[bus.KindResourceTemplatesList].content), &tmpl)
		json.Unmarshal([]byte(w.lists[bus.KindPromptsList].content), &prompts)
	}
	return res, tmpl, prompts
}

func (d *directory) worker(pk string) *announced {
	w := d.workers[pk]
	if w == nil {
		w = &announced{}
		d.workers[pk] = w
	}
	return w
}

// announcedName is the worker's name tag, else its serverInfo name.
func announcedName(ev *nostr.Event) string {
	if n := bus.TagValue(ev, bus.TagName); n != "" {
		return n
	}
	var init mcp.InitializeResult
	if json.Unmarshal([]byte(ev.Content), &init) == nil && init.ServerInfo != nil {
		return init.ServerInfo.Name
	}
	return ""
}

// snapshot returns the tools the user may call now: of configured workers,
// or of workers that are members.
func (d *directory) snapshot() (map[string]binding, map[binding]*mcp.Tool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var ws []workerTools
	tools := map[binding]*mcp.Tool{}
	for pk, w := range d.workers {
		if !d.callable(pk) || len(w.tools) == 0 {
			continue
		}
		wt := workerTools{pubkey: pk, name: w.name}
		for _, t := range w.tools {
			if t == nil || t.Name == "" {
				continue
			}
			wt.tools = append(wt.tools, t.Name)
			tools[binding{worker: pk, tool: t.Name}] = t
		}
		ws = append(ws, wt)
	}
	if d.flat && len(ws) == 1 {
		return flatNames(ws[0]), tools
	}
	return exposedNames(ws), tools
}

func (d *directory) callable(pk string) bool {
	if d.fixed != nil {
		return d.fixed[pk]
	}
	return d.members[pk]
}
