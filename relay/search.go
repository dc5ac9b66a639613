package relay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fiatjaf/eventstore/bluge"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-50 search: a full-text index (eventstore's bluge backend) over the
// content of chat kinds, kept beside the event store under data_dir/search
// and rebuilt from the store when it is missing. A REQ filter with a
// "search" field is answered from the index, ranked by relevance (best
// first), with the filter's other conditions (#h channel, authors, kinds,
// since/until) and the reader's visibility applied to every hit: a reader
// never learns of a message they may not read. Paging is by `until`.

// searchableKinds are indexed: chat messages, notes, threads, comments,
// long-form articles.
var searchableKinds = []int{1, 9, 10, 11, 12, 1111, 30023}

// maxSearchHits bounds the hits one search ranks (before visibility).
const maxSearchHits = 150

func (s *Server) openSearch(ctx context.Context) error {
	path := filepath.Join(s.cfg.DataDir, "search")
	_, statErr := os.Stat(path)
	idx := &bluge.BlugeBackend{Path: path, RawEventStore: s.store}
	if err := idx.Init(); err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	s.search = idx
	s.indexQ, s.indexDone = make(chan indexJob, 65536), make(chan struct{})
	go s.runIndexer()
	if errors.Is(statErr, os.ErrNotExist) {
		for _, ev := range s.queryAll(ctx, nostr.Filter{Kinds: searchableKinds}) {
			idx.SaveEvent(ctx, ev)
		}
	}
	return nil
}

// indexForSearch hands a stored searchable event to the indexer, off the
// commit path (indexing runs while the batch syncs). The returned channel
// closes once it is indexed (nil when the kind is not searchable): the OK
// waits for it, so an event is searchable as soon as it is acknowledged.
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

// runIndexer applies index jobs in order until the queue closes.
func (s *Server) runIndexer() {
	defer close(s.indexDone)
	ctx := context.Background()
	for j := range s.indexQ {
		var err error
		if j.remove {
			err = s.search.DeleteEvent(ctx, j.ev)
		} else {
			err = s.search.SaveEvent(ctx, j.ev)
		}
		if err != nil {
			s.log.Warn("search index update failed", "id", j.ev.ID, "err", err)
		}
		if j.done != nil {
			close(j.done)
		}
	}
}

// searchStored answers a search filter for reader pk: ranked hits that
// match the rest of the filter and that pk may see, at most f.Limit.
func (s *Server) searchStored(ctx context.Context, pk string, f *nostr.Filter, emit func(*nostr.Event) bool) {
	wide := *f
	wide.Limit = maxSearchHits // rank widely, then filter: visibility drops hits
	ch, err := s.search.QueryEvents(ctx, wide)
	if err != nil {
		s.log.Warn("search failed", "err", err)
		return
	}
	sent := 0
	for ev := range ch {
		if sent >= f.Limit || ctx.Err() != nil || !f.Matches(ev) || !s.visibleTo(pk, f, ev) {
			continue // keep draining: the index's producer has no context
		}
		if !emit(ev) {
			continue
		}
		sent++
	}
}

// matchesSearch is the live counterpart of the index for a subscription
// with a search filter: every term of the query must occur in the content
// (case-insensitively). Ranking does not apply to live events.
func matchesSearch(query, content string) bool {
	content = strings.ToLower(content)
	for _, term := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(content, term) {
			return false
		}
	}
	return true
}
