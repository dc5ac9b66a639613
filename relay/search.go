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
	if errors.Is(statErr, os.ErrNotExist) {
		for _, ev := range s.queryAll(ctx, nostr.Filter{Kinds: searchableKinds}) {
			idx.SaveEvent(ctx, ev)
		}
	}
	return nil
}

// indexEvent is a StoreEvent hook: searchable kinds enter the index.
func (s *Server) indexEvent(ctx context.Context, ev *nostr.Event) error {
	if slices.Contains(searchableKinds, ev.Kind) {
		if err := s.search.SaveEvent(ctx, ev); err != nil {
			s.log.Warn("search index update failed", "id", ev.ID, "err", err)
		}
	}
	return nil
}

// unindexEvent is a DeleteEvent hook.
func (s *Server) unindexEvent(ctx context.Context, ev *nostr.Event) error {
	if slices.Contains(searchableKinds, ev.Kind) {
		s.search.DeleteEvent(ctx, ev)
	}
	return nil
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
