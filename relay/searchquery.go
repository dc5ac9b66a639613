package relay

import (
	"strconv"
	"strings"
)

// searchQuery is a NIP-50 search string split into the words to match and
// the extensions toolbus understands. NIP-50 ranks by relevance, so `until`
// cannot page a ranked list (a lower-ranked but newer hit would never be
// reached); paging is the `offset:N` extension instead: skip the first N
// hits this reader may see, in rank order. Unknown `key:value` extensions
// are dropped, as NIP-50 asks of relays that do not support them.
type searchQuery struct {
	words  string
	offset int
}

// maxSearchOffset bounds how deep one search may page: ranking depth is
// offset + limit, and every ranked hit is loaded and checked for
// visibility.
const maxSearchOffset = 1000

// nip50Extensions are the extension keys NIP-50 defines; words of the
// form key:value with another key are searched for as text.
var nip50Extensions = map[string]bool{"include": true, "domain": true, "language": true,
	"sentiment": true, "nsfw": true, "offset": true}

func parseSearch(s string) searchQuery {
	var q searchQuery
	var words []string
	for _, w := range strings.Fields(s) {
		key, val, ok := strings.Cut(w, ":")
		if !ok || !nip50Extensions[strings.ToLower(key)] {
			words = append(words, w)
			continue
		}
		if strings.EqualFold(key, "offset") {
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				q.offset = min(n, maxSearchOffset)
			}
		}
	}
	q.words = strings.Join(words, " ")
	return q
}
