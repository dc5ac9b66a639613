package relay

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blugelabs/bluge"
	"github.com/nbd-wtf/go-nostr"
)

// searchIndex is toolbus's full-text index of chat content, on bluge. It
// keeps only what search needs — the content, and the kind, channel (h) and
// time for narrowing — under the event id; events themselves stay in the
// event store. Updates are applied in batches: bluge persists each batch
// with a sync, about 9 ms, so one update per event would cap ingest at
// ~100 events/s.
type searchIndex struct {
	w *bluge.Writer
}

const (
	fieldContent = "content"
	fieldKind    = "kind"
	fieldChannel = "h"
	fieldTime    = "created_at"
	fieldID      = "_id" // bluge's document id field
)

func openSearchIndex(path string) (*searchIndex, error) {
	w, err := bluge.OpenWriter(bluge.DefaultConfig(path))
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return &searchIndex{w: w}, nil
}

func (x *searchIndex) close() error { return x.w.Close() }

// apply writes a batch of additions and removals with one persist.
func (x *searchIndex) apply(jobs []indexJob) error {
	b := bluge.NewBatch()
	for _, j := range jobs {
		if j.remove {
			b.Delete(bluge.Identifier(j.ev.ID))
			continue
		}
		doc := bluge.NewDocument(j.ev.ID).
			AddField(bluge.NewTextField(fieldContent, j.ev.Content)).
			AddField(bluge.NewKeywordField(fieldKind, strconv.Itoa(j.ev.Kind))).
			AddField(bluge.NewNumericField(fieldTime, float64(j.ev.CreatedAt)))
		for _, t := range j.ev.Tags {
			if len(t) >= 2 && t[0] == "h" {
				doc.AddField(bluge.NewKeywordField(fieldChannel, t[1]))
			}
		}
		b.Update(doc.ID(), doc)
	}
	return x.w.Batch(b)
}

// search returns the ids of the n best matches of words, narrowed by f's
// kinds, channels (#h) and time range, best first.
func (x *searchIndex) search(ctx context.Context, f *nostr.Filter, words string, n int) ([]string, error) {
	r, err := x.w.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	q := bluge.NewBooleanQuery().AddMust(bluge.NewMatchQuery(words).SetField(fieldContent))
	if len(f.Kinds) > 0 {
		q.AddMust(anyTerm(fieldKind, kindStrings(f.Kinds)))
	}
	if hs := f.Tags["h"]; len(hs) > 0 {
		q.AddMust(anyTerm(fieldChannel, hs))
	}
	if f.Since != nil || f.Until != nil {
		lo, hi := 0.0, float64(nostr.Now()+3600)
		if f.Since != nil {
			lo = float64(*f.Since)
		}
		if f.Until != nil {
			hi = float64(*f.Until)
		}
		q.AddMust(bluge.NewNumericRangeInclusiveQuery(lo, hi, true, true).SetField(fieldTime))
	}
	hits, err := r.Search(ctx, bluge.NewTopNSearch(n, q))
	if err != nil {
		return nil, err
	}
	var ids []string
	for m, err := hits.Next(); m != nil && err == nil; m, err = hits.Next() {
		m.VisitStoredFields(func(field string, value []byte) bool {
			if field == fieldID {
				ids = append(ids, string(value))
			}
			return true
		})
	}
	return ids, nil
}

func anyTerm(field string, values []string) *bluge.BooleanQuery {
	q := bluge.NewBooleanQuery().SetMinShould(1)
	for _, v := range values {
		q.AddShould(bluge.NewTermQuery(v).SetField(field))
	}
	return q
}

func kindStrings(kinds []int) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = strconv.Itoa(k)
	}
	return out
}
