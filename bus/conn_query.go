package bus

import (
	"context"
	"sync"

	"github.com/nbd-wtf/go-nostr"
)

// Query asks the relay once for the stored events matching filters: it
// subscribes, collects events until the relay's EOSE, closes the
// subscription and returns the events in the order the relay sent them
// (for one filter, a NIP-01 relay sends newest first; with several, they
// come filter after filter). Every event has a verified id and signature,
// and an event sent twice (by two filters, or again after a reconnect)
// appears once.
//
// If the relay refuses the subscription with CLOSED, the error is the
// *RejectedError (an auth-required refusal is first answered by
// authenticating, as Subscribe does). If ctx ends before EOSE, Query returns
// what arrived so far with ctx's error; after Close, ErrClosed. While the
// Conn is reconnecting, Query waits for the next connection.
func (c *Conn) Query(ctx context.Context, filters nostr.Filters) ([]*nostr.Event, error) {
	var (
		mu  sync.Mutex
		out []*nostr.Event
		// done is set once EOSE is seen: later events are live ones, which
		// the caller did not ask for. One that slips in before is harmless:
		// it matches the filters like the stored ones.
		done bool
	)
	collect := func(ev *nostr.Event) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			out = append(out, ev)
		}
	}
	sub, err := c.Subscribe(ctx, func() nostr.Filters { return filters }, collect, nil)
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	err = waitEOSE(ctx, sub)
	mu.Lock()
	defer mu.Unlock()
	done = true
	return out, err
}

// waitEOSE waits for the end of stored events, the end of the
// subscription, or ctx, whichever comes first.
func waitEOSE(ctx context.Context, sub *Subscription) error {
	select {
	case <-sub.EOSE():
		return nil
	case <-sub.Done():
		if err := sub.Err(); err != nil {
			return err
		}
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}
