package policies

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip40"
)

// RejectExpired refuses events whose NIP-40 expiration is already past:
// storing them would only serve them to nobody.
func RejectExpired() func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if Expired(ev, nostr.Now()) {
			return true, "invalid: event has expired"
		}
		return false, ""
	}
}

// Expired reports whether ev carries a NIP-40 expiration at or before now.
func Expired(ev *nostr.Event, now nostr.Timestamp) bool {
	exp := nip40.GetExpiration(ev.Tags)
	return exp != -1 && exp <= now
}
