package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// NIP-50 search: a full-text index (searchIndex, on bluge) over the content
// of chat kinds, kept beside the event store under data_dir/search and
// rebuilt from the store when it is missing. A REQ filter with a
// "search" field is answered from the index, ranked by relevance (best
// first), with the filter's other conditions (#h channel, authors, kinds,
// since/until) and the reader's visibility applied to every hit: a reader
// never learns of a message they may not read. Paging is by the `offset:N`
// extension in the search string (see searchQuery), not by `until`.

// searchableKinds are indexed: the workspace's conversation — channel
// messages (9, and the NIP-29 thread kinds 10-12), comments (1111) and
// long-form articles (30023). Public-style notes (kind 1) are not: a
// workspace talks in channels, and indexing costs every write.
var searchableKinds = []int{9, 10, 11, 12, 1111, 30023}

// minSearchHits is how many hits a search ranks at least (before
// visibility), so that hidden hits rarely leave a page short.
const minSearchHits = 150

// rankDepth is how many hits to rank for a page: the skipped ones plus
// room for the page after visibility drops some, within a bound, because
// every ranked hit is loaded from the store.
func rankDepth(offset, limit int) int {
	return max(minSearchHits, offset+min(4*limit, 1000))
}

func (s *Server) openSearch(ctx context.Context) error {
	path := filepath.Join(s.cfg.DataDir, "search")
	_, statErr := os.Stat(path)
	idx, err := openSearchIndex(path)
	if err != nil {
		return err
	}
	s.search = idx
	if errors.Is(statErr, os.ErrNotExist) {
		var jobs []indexJob
		for _, ev := range s.queryAll(ctx, nostr.Filter{Kinds: searchableKinds}) {
			jobs = append(jobs, indexJob{ev: ev})
		}
		if err := idx.apply(jobs); err != nil {
			return fmt.Errorf("rebuild search index: %w", err)
		}
	}
	s.indexQ, s.indexDone = make(chan indexJob, 65536), make(chan struct{})
	go s.runIndexer()
	return nil
}

// indexForSearch hands a stored searchable event to the indexer, off the
// commit path: bluge persists each batch with a sync (~9 ms), so search is
// eventually consistent — an event becomes searchable a few milliseconds
// after its OK — rather than every OK waiting for the index. The returned
// channel closes once it is indexed (nil when the kind is not searchable).
func (s *Server) indexForSearch(ev *nostr.Event) chan struct{} {
	if !slices.Contains(searchableKinds, ev.Kind) {
		return nil
	}
	done := make(chan struct{})
	s.indexQ <- indexJob{ev: ev, done: done}
	return done
}

// unindex removes a deleted event from the index.
func (s *Server) unindex(ev *nostr.Event) {
	if slices.Contains(searchableKinds, ev.Kind) {
		s.indexQ <- indexJob{ev: ev, remove: true}
	}
}

type indexJob struct {
	ev     *nostr.Event
	remove bool
	done   chan struct{} // closed when applied (optional)
}

// runIndexer applies index jobs in batches — everything queued while the
// previous batch persisted — until the queue closes.
func (s *Server) runIndexer() {
	defer close(s.indexDone)
	var batch []indexJob
	for j := range s.indexQ {
		batch = append(batch[:0], j)
	collect:
		for len(batch) < maxBatch {
			select {
			case next, ok := <-s.indexQ:
				if !ok {
					break collect
				}
				batch = append(batch, next)
			default:
				break collect
			}
		}
		if err := s.search.apply(batch); err != nil {
			s.log.Warn("search index update failed", "events", len(batch), "err", err)
		}
		for _, j := range batch {
			if j.done != nil {
				close(j.done)
			}
		}
	}
}

// searchStored answers a search filter for reader pk: ranked hits that
// match the rest of the filter and that pk may see, at most f.Limit.
func (s *Server) searchStored(ctx context.Context, pk string, f *nostr.Filter, emit func(*nostr.Event) bool) {
	// Rank widely, then filter: the rest of the filter and visibility drop
	// hits, and the reader should still get up to f.Limit.
	q := parseSearch(f.Search)
	if q.words == "" {
		return
	}
	ids, err := s.search.search(ctx, f, q.words, rankDepth(q.offset, f.Limit))
	if err != nil || len(ids) == 0 {
		if err != nil && ctx.Err() == nil { // a closed subscription is no failure
			s.log.Warn("search failed", "err", err)
		}
		return
	}
	byID := map[string]*nostr.Event{}
	s.query(ctx, &nostr.Filter{IDs: ids, Limit: len(ids)}, func(ev *nostr.Event) bool {
		byID[ev.ID] = ev
		return true
	})
	sent, skip := 0, q.offset
	for _, id := range ids {
		ev := byID[id]
		if ev == nil || !f.Matches(ev) || !s.visibleTo(pk, f, ev) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if sent >= f.Limit || !emit(ev) {
			return
		}
		sent++
	}
}

// matchesSearch is the live counterpart of the index for a subscription
// with a search filter: every term of the query must occur in the content
// (case-insensitively). Ranking does not apply to live events.
func matchesSearch(query, content string) bool {
	words := strings.Fields(strings.ToLower(parseSearch(query).words))
	if len(words) == 0 {
		return false // only extensions: the stored side finds nothing either
	}
	content = strings.ToLower(content)
	for _, term := range words {
		if !strings.Contains(content, term) {
			return false
		}
	}
	return true
}
