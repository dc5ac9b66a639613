package relay

import "sync"

// idSet remembers the last max ids added (a ring), for cheap duplicate
// suppression of events that are relayed but never stored.
type idSet struct {
	mu   sync.Mutex
	ring []string
	next int
	set  map[string]struct{}
}

func newIDSet(max int) *idSet {
	return &idSet{ring: make([]string, max), set: make(map[string]struct{}, max)}
}

// add records id and reports whether it was new.
func (s *idSet) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.set[id]; ok {
		return false
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.set, old)
	}
	s.ring[s.next] = id
	s.next = (s.next + 1) % len(s.ring)
	s.set[id] = struct{}{}
	return true
}
