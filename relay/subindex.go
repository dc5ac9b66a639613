package relay

import (
	"sync"

	"github.com/nbd-wtf/go-nostr"
)

// subIndex finds the live subscriptions an event matches without scanning
// unrelated ones. Each filter is filed under exactly one dimension — the most
// selective it constrains: ids, then authors, then one tag, then kinds — and
// under each of that dimension's values. A filter constraining none of them
// (rare: "everything since T") lands in the catch-all list. Publishing an
// event then looks up only its own id, author, tag values and kind, and runs
// the full match on those candidates alone: publish cost no longer grows with
// unrelated subscriptions.
type subIndex struct {
	mu       sync.RWMutex
	byID     map[string]entrySet
	byAuthor map[string]entrySet
	byTag    map[string]entrySet // tag name + "\x00" + value
	byKind   map[int]entrySet
	any      entrySet
}

// entry is one filter of one subscription.
type entry struct {
	sub    *subscription
	filter nostr.Filter
	keys   []indexKey // where this entry is filed, for removal
}

type entrySet map[*entry]struct{}

type indexKey struct {
	dim  byte // 'i' id, 'a' author, 't' tag, 'k' kind, '*' catch-all
	str  string
	kind int
}

func newSubIndex() *subIndex {
	return &subIndex{byID: map[string]entrySet{}, byAuthor: map[string]entrySet{},
		byTag: map[string]entrySet{}, byKind: map[int]entrySet{}, any: entrySet{}}
}

// add files every filter of sub.
func (x *subIndex) add(sub *subscription) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, f := range sub.filters {
		e := &entry{sub: sub, filter: f, keys: keysFor(f)}
		sub.entries = append(sub.entries, e)
		for _, k := range e.keys {
			x.set(k, true)[e] = struct{}{}
		}
	}
}

// remove unfiles every filter of sub.
func (x *subIndex) remove(sub *subscription) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range sub.entries {
		for _, k := range e.keys {
			set := x.set(k, false)
			delete(set, e)
			if len(set) == 0 && k.dim != '*' {
				x.drop(k)
			}
		}
	}
	sub.entries = nil
}

// target is one subscription an event is to be delivered to, with the
// filter that matched.
type target struct {
	sub    *subscription
	filter *nostr.Filter
}

// match returns each subscription with a filter matching ev, once. Delivery
// happens after the lock is released, as it may drop a connection (which
// unfiles its subscriptions).
func (x *subIndex) match(ev *nostr.Event) []target {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []target
	var seen map[*subscription]bool // only once out is long enough to matter
	visit := func(set entrySet) {
		for e := range set {
			if !e.filter.Matches(ev) || hasSub(out, seen, e.sub) {
				continue
			}
			out = append(out, target{e.sub, &e.filter})
			if seen != nil {
				seen[e.sub] = true
			} else if len(out) > 16 {
				seen = make(map[*subscription]bool, 2*len(out))
				for _, t := range out {
					seen[t.sub] = true
				}
			}
		}
	}
	visit(x.byID[ev.ID])
	visit(x.byAuthor[ev.PubKey])
	visit(x.byKind[ev.Kind])
	for _, t := range ev.Tags {
		if len(t) >= 2 && len(t[0]) == 1 {
			visit(x.byTag[t[0]+"\x00"+t[1]])
		}
	}
	visit(x.any)
	return out
}

func hasSub(list []target, seen map[*subscription]bool, s *subscription) bool {
	if seen != nil {
		return seen[s]
	}
	for _, v := range list {
		if v.sub == s {
			return true
		}
	}
	return false
}

func (x *subIndex) set(k indexKey, create bool) entrySet {
	var set entrySet
	switch k.dim {
	case 'i':
		set = x.byID[k.str]
	case 'a':
		set = x.byAuthor[k.str]
	case 't':
		set = x.byTag[k.str]
	case 'k':
		set = x.byKind[k.kind]
	default:
		return x.any
	}
	if set == nil && create {
		set = entrySet{}
		switch k.dim {
		case 'i':
			x.byID[k.str] = set
		case 'a':
			x.byAuthor[k.str] = set
		case 't':
			x.byTag[k.str] = set
		case 'k':
			x.byKind[k.kind] = set
		}
	}
	return set
}

func (x *subIndex) drop(k indexKey) {
	switch k.dim {
	case 'i':
		delete(x.byID, k.str)
	case 'a':
		delete(x.byAuthor, k.str)
	case 't':
		delete(x.byTag, k.str)
	case 'k':
		delete(x.byKind, k.kind)
	}
}

// keysFor picks the dimension a filter is filed under. An empty value list
// (e.g. "authors": []) matches nothing, so such a filter is filed nowhere.
func keysFor(f nostr.Filter) []indexKey {
	switch {
	case f.IDs != nil:
		return strKeys('i', "", f.IDs)
	case f.Authors != nil:
		return strKeys('a', "", f.Authors)
	}
	if name, vals, ok := narrowestTag(f.Tags); ok {
		return strKeys('t', name+"\x00", vals)
	}
	if f.Kinds != nil {
		keys := make([]indexKey, 0, len(f.Kinds))
		for _, k := range f.Kinds {
			keys = append(keys, indexKey{dim: 'k', kind: k})
		}
		return keys
	}
	return []indexKey{{dim: '*'}}
}

func strKeys(dim byte, prefix string, vals []string) []indexKey {
	keys := make([]indexKey, 0, len(vals))
	for _, v := range vals {
		keys = append(keys, indexKey{dim: dim, str: prefix + v})
	}
	return keys
}

// narrowestTag returns the single-letter tag condition with the fewest values.
func narrowestTag(tags nostr.TagMap) (string, []string, bool) {
	best, found := "", false
	for name, vals := range tags {
		if len(name) != 1 || vals == nil {
			continue
		}
		if !found || len(vals) < len(tags[best]) {
			best, found = name, true
		}
	}
	if !found {
		return "", nil, false
	}
	return best, tags[best], true
}
