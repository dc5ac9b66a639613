package policies

import (
	"context"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// PreventLargeTags rejects events with more than max tags.
func PreventLargeTags(max int) func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if len(ev.Tags) > max {
			return true, fmt.Sprintf("invalid: too many tags (%d > %d)", len(ev.Tags), max)
		}
		return false, ""
	}
}

// PreventLargeContent rejects events whose content exceeds max bytes.
func PreventLargeContent(max int) func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if len(ev.Content) > max {
			return true, fmt.Sprintf("invalid: content too large (%d > %d bytes)", len(ev.Content), max)
		}
		return false, ""
	}
}

// PreventFutureEvents rejects events dated more than skew seconds ahead, which
// would otherwise sort above everything and never age out of "latest" queries.
func PreventFutureEvents(skew int64) func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if int64(ev.CreatedAt) > int64(nostr.Now())+skew {
			return true, "invalid: created_at is too far in the future"
		}
		return false, ""
	}
}

// FilterValueLimit rejects filters with more than max ids, authors, kinds or
// values of one tag: matching cost grows with them, and a REQ with 100,000
// ids is an attack, not a query.
func FilterValueLimit(max int) func(context.Context, nostr.Filter) (bool, string) {
	return func(_ context.Context, f nostr.Filter) (bool, string) {
		if len(f.IDs) > max || len(f.Authors) > max || len(f.Kinds) > max {
			return true, fmt.Sprintf("invalid: too many values in filter (max %d per field)", max)
		}
		if len(f.Tags) > 26*2 {
			return true, "invalid: too many tag conditions in filter"
		}
		for _, vals := range f.Tags {
			if len(vals) > max {
				return true, fmt.Sprintf("invalid: too many values in filter (max %d per field)", max)
			}
		}
		return false, ""
	}
}

// ClampLimit lowers a filter's limit to max (and sets it when absent), so a
// stored query never returns more than max events.
func ClampLimit(max int) func(context.Context, *nostr.Filter) {
	return func(_ context.Context, f *nostr.Filter) {
		if f.LimitZero {
			return
		}
		if f.Limit <= 0 || f.Limit > max {
			f.Limit = max
		}
	}
}
