package bus

import "github.com/nbd-wtf/go-nostr"

// memberSet is one version of the workspace membership, from a NIP-43
// membership list (kind 13534) signed by the relay. Immutable once built.
type memberSet struct {
	at      nostr.Timestamp
	members map[string]bool
}

func parseMembers(ev *nostr.Event) *memberSet {
	m := &memberSet{at: ev.CreatedAt, members: map[string]bool{}}
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "member" {
			m.members[t[1]] = true
		}
	}
	return m
}

func (m *memberSet) has(pk string) bool { return m != nil && m.members[pk] }
