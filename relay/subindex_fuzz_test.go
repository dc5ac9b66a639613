package relay

import (
	"encoding/json"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// FuzzSubIndex is differential: for any filters and event, the indexed
// lookup must deliver to exactly the subscriptions a scan of every filter
// with nostr's own Matches would.
func FuzzSubIndex(f *testing.F) {
	f.Add(`[{"kinds":[1]},{"authors":["aa"]},{"#p":["bb"],"kinds":[9]},{}]`,
		`{"id":"ff","pubkey":"aa","kind":9,"tags":[["p","bb"],["e","cc"]],"content":"x","created_at":10}`)
	f.Add(`[{"ids":["ff"]},{"#e":["cc","dd"],"#p":["zz"]},{"kinds":[]},{"authors":[]}]`,
		`{"id":"ff","pubkey":"aa","kind":1,"tags":[["e","cc"],["e","dd"]],"created_at":5}`)
	f.Add(`[{"since":20},{"until":5,"kinds":[1]},{"#t":["go"],"#p":["bb"]}]`,
		`{"id":"01","pubkey":"02","kind":1,"tags":[["t","go"],["p","bb"]],"created_at":10}`)
	f.Fuzz(func(t *testing.T, filtersJSON, eventJSON string) {
		var filters []nostr.Filter
		var ev nostr.Event
		if json.Unmarshal([]byte(filtersJSON), &filters) != nil || json.Unmarshal([]byte(eventJSON), &ev) != nil {
			return
		}
		if len(filters) > 64 {
			return
		}
		x := newSubIndex()
		subs := make([]*subscription, len(filters))
		for i, fl := range filters {
			subs[i] = &subscription{id: string(rune('a' + i%26)), filters: []nostr.Filter{fl}}
			x.add(subs[i])
		}
		got := map[*subscription]int{}
		for _, tg := range x.match(&ev) {
			got[tg.sub]++
		}
		for i, fl := range filters {
			want := fl.Matches(&ev)
			if n := got[subs[i]]; n > 1 || (n == 1) != want {
				t.Fatalf("filter %d %s: delivered %d times, Matches says %v", i, fl, n, want)
			}
		}
		for _, s := range subs {
			x.remove(s)
		}
		if len(x.byID)+len(x.byAuthor)+len(x.byTag)+len(x.byKind)+len(x.any) != 0 {
			t.Fatal("index not empty after removing every subscription")
		}
	})
}
