package policies

import (
	"context"
	"fmt"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/ratelimit"
)

// Limiter is the keyed token bucket the rate-limit rules take.
type Limiter = ratelimit.Limiter

// NewLimiter returns a limiter refilling rate tokens per second up to burst,
// keeping at most maxKeys buckets.
func NewLimiter(rate float64, burst int, maxKeys int) *Limiter {
	return ratelimit.New(rate, burst, maxKeys)
}

// RateLimitPubKey refuses events from an author that exceeded its budget.
// It runs after signature verification, so nobody can spend someone else's
// budget by forging their pubkey.
func RateLimitPubKey(l *Limiter) func(context.Context, *nostr.Event) (bool, string) {
	return func(_ context.Context, ev *nostr.Event) (bool, string) {
		if ok, wait := l.Allow(ev.PubKey); !ok {
			return true, fmt.Sprintf("rate-limited: slow down, retry in %d ms", wait.Milliseconds()+1)
		}
		return false, ""
	}
}

// RateLimitIP refuses events from an address that exceeded its budget.
func RateLimitIP(l *Limiter) func(context.Context, *nostr.Event) (bool, string) {
	return func(ctx context.Context, _ *nostr.Event) (bool, string) {
		ip := IP(ctx)
		if ip == "" {
			return false, ""
		}
		if ok, wait := l.Allow(ip); !ok {
			return true, fmt.Sprintf("rate-limited: slow down, retry in %d ms", wait.Milliseconds()+1)
		}
		return false, ""
	}
}
