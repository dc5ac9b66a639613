package triggers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// RepoInfo describes the push a kind-30618 state event reports. The event
// lists every ref, not what changed, so the changes are found by comparing
// with the previous state the runner saw of the same repository (none: all
// refs count as changed).
type RepoInfo struct {
	// StateEvent is the 30618's id; CreatedAt its time.
	StateEvent string `json:"state_event"`
	CreatedAt  int64  `json:"created_at"`
	// Owner is the owner's hex pubkey, Name the repository name.
	Owner string `json:"owner"`
	Name  string `json:"name"`
	// CloneURL is the event's clone tag.
	CloneURL string `json:"clone_url"`
	// HeadRef is what HEAD points at ("refs/heads/main"), or "".
	HeadRef string `json:"head_ref,omitempty"`
	// Refs maps every ref name to its object id.
	Refs map[string]string `json:"refs"`
	// Changed are the refs that differ from the previous state, by name.
	Changed []RefChange `json:"changed,omitempty"`
	// Ref is the pushed ref a trigger acts on, Commit its object id and
	// Branch its short name ("main", or the tag name).
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	Branch string `json:"branch,omitempty"`
}

// RefChange is one changed ref; Old is "" for a new ref, New "" for a
// deleted one.
type RefChange struct {
	Name string `json:"name"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// Short is the first 7 characters of Commit.
func (r *RepoInfo) Short() string { return r.Commit[:min(len(r.Commit), 7)] }

// Address is the repository's NIP-34 announcement address.
func (r *RepoInfo) Address() string { return "30617:" + r.Owner + ":" + r.Name }

// parseState reads a 30618 and compares it with prev (nil if unknown).
func parseState(ev *nostr.Event, prev *RepoInfo) (*RepoInfo, error) {
	r := &RepoInfo{StateEvent: ev.ID, CreatedAt: int64(ev.CreatedAt), Refs: map[string]string{}}
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		switch {
		case t[0] == "d":
			r.Owner, r.Name, _ = strings.Cut(t[1], "/")
		case t[0] == "clone" && r.CloneURL == "":
			r.CloneURL = t[1]
		case t[0] == "HEAD":
			r.HeadRef = strings.TrimPrefix(t[1], "ref: ")
		case strings.HasPrefix(t[0], "refs/"):
			r.Refs[t[0]] = t[1]
		}
	}
	if len(r.Owner) != 64 || r.Name == "" {
		return nil, fmt.Errorf("state event %s has no d tag \"<owner hex>/<repo>\"", ev.ID)
	}
	var old map[string]string
	if prev != nil {
		old = prev.Refs
	}
	for name, id := range r.Refs {
		if old[name] != id {
			r.Changed = append(r.Changed, RefChange{Name: name, Old: old[name], New: id})
		}
	}
	for name, id := range old {
		if _, ok := r.Refs[name]; !ok {
			r.Changed = append(r.Changed, RefChange{Name: name, Old: id})
		}
	}
	sort.Slice(r.Changed, func(i, j int) bool { return r.Changed[i].Name < r.Changed[j].Name })
	return r, nil
}

// forPatterns returns a copy whose Ref is the changed, not deleted ref the
// trigger acts on: HEAD's branch when it changed, else the first changed
// branch, else the first changed ref; only refs matching patterns (when
// given) count. It returns nil when no ref qualifies.
func (r *RepoInfo) forPatterns(patterns []string) *RepoInfo {
	var cands []RefChange
	for _, c := range r.Changed {
		if c.New != "" && matchAny(patterns, c.Name) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	pick := cands[0]
	for _, c := range cands {
		if c.Name == r.HeadRef {
			pick = c
			break
		}
		if strings.HasPrefix(c.Name, "refs/heads/") && !strings.HasPrefix(pick.Name, "refs/heads/") {
			pick = c
		}
	}
	cp := *r
	cp.Ref, cp.Commit = pick.Name, pick.New
	cp.Branch = strings.TrimPrefix(strings.TrimPrefix(pick.Name, "refs/heads/"), "refs/tags/")
	return &cp
}

func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if matchRef(p, name) {
			return true
		}
	}
	return false
}

// Mention is the part of a message addressed to the worker: the text after
// its npub ("nostr:npub1…", "@npub1…" or the bare npub), or the whole
// content when the npub is not in the text (a p tag alone).
type Mention struct {
	// Text is everything after the mention, trimmed.
	Text string
	// Tool is Text's first word and Rest what follows it, trimmed.
	Tool, Rest string
}

func mentionOf(content, npub string) Mention {
	text := content
	if i := strings.Index(content, npub); i >= 0 {
		text = content[i+len(npub):]
	}
	text = strings.TrimSpace(strings.TrimLeft(text, ":, \t\n"))
	m := Mention{Text: text}
	fields := strings.Fields(text)
	if len(fields) > 0 {
		m.Tool = fields[0]
		m.Rest = strings.TrimSpace(strings.TrimPrefix(text, fields[0]))
	}
	return m
}
