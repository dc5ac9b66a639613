package relay

import (
	"context"
	"slices"

	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/relay/policies"
)

// Options configures the rules Install adds to a khatru relay.
type Options struct {
	// Membership decides who writes and reads. Required.
	Membership policies.Membership
	// Limits bounds events and filters (see config.Limits).
	Limits config.Limits
	// PubKeyRate, when set, budgets events per author.
	PubKeyRate *policies.Limiter
	// IPRate, when set, budgets events per client address. toolbus's own
	// engine leaves it nil and charges addresses before verifying signatures.
	IPRate *policies.Limiter
	// AnonymousWraps accepts gift wraps addressed to a member from
	// connections that did not authenticate (see config.ToolBus).
	AnonymousWraps bool
}

// publicKinds may reach readers who are not members: NIP-59 gift wraps,
// whose content is encrypted to the recipient named in their p tag, and
// plaintext tool messages, which busVisibility narrows to their parties.
var publicKinds = []int{nostr.KindGiftWrap, kindEphemeralGW, kindBusMessage}

// Install appends toolbus's workspace rules to rl's hook slices: event
// limits, NIP-40 expiry, membership-restricted writes, per-filter read gating
// and per-delivery visibility. Call it after the store's hooks are in place,
// as it wraps rl.QueryEvents to drop what the reader may not see.
func Install(rl *khatru.Relay, opts Options) {
	installRules(rl, opts)
	member := opts.visibility()
	vis := func(v policies.Viewer, ev *nostr.Event) bool { return member(v, ev) && busVisibility(v, ev) }
	rl.PreventBroadcast = append(rl.PreventBroadcast, func(ws *khatru.WebSocket, ev *nostr.Event) bool {
		return !vis(policies.Viewer{PubKey: ws.AuthedPublicKey}, ev)
	})
	for i, q := range rl.QueryEvents {
		rl.QueryEvents[i] = filteredQuery(q, vis)
	}
	// Tool traffic is relayed, not stored; an ephemeral hook makes khatru
	// answer OK true when nobody listens instead of "mute:".
	for i, store := range rl.StoreEvent {
		rl.StoreEvent[i] = skipBusKinds(store)
	}
	rl.OnEphemeralEvent = append(rl.OnEphemeralEvent, func(context.Context, *nostr.Event) {})
}

func skipBusKinds(store func(context.Context, *nostr.Event) error) func(context.Context, *nostr.Event) error {
	return func(ctx context.Context, ev *nostr.Event) error {
		if isBusKind(ev.Kind) {
			return nil
		}
		return store(ctx, ev)
	}
}

// installRules adds the rules both engines share.
func installRules(rl *khatru.Relay, opts Options) {
	l := opts.Limits
	rl.RejectEvent = append(rl.RejectEvent,
		policies.PreventLargeTags(l.MaxEventTags),
		policies.PreventLargeContent(l.MaxContentBytes),
		policies.PreventFutureEvents(15*60),
		policies.RejectExpired(),
		policies.RestrictWrites(opts.Membership, exemptFromAuthorCheck),
		busWrites(opts.Membership, opts.AnonymousWraps),
	)
	if opts.IPRate != nil {
		rl.RejectEvent = append(rl.RejectEvent, policies.RateLimitIP(opts.IPRate))
	}
	if opts.PubKeyRate != nil {
		rl.RejectEvent = append(rl.RejectEvent, policies.RateLimitPubKey(opts.PubKeyRate))
	}
	rl.OverwriteFilter = append(rl.OverwriteFilter, policies.ClampLimit(l.MaxLimit))
	rl.RejectFilter = append(rl.RejectFilter,
		policies.FilterValueLimit(l.MaxFilterValues),
		policies.ReadGate(opts.Membership, canServePublic),
	)
}

// visibility is the per-delivery rule: members see everything, others only
// tool-bus events addressed to a recipient their filter names.
func (o Options) visibility() policies.VisibleFunc {
	return policies.MembersOnly(o.Membership, publicForViewer)
}

// publicForViewer lets tool-bus events through to non-members when the
// reader's filter asks for their recipient by #p (busVisibility then narrows
// plaintext ones to their authenticated parties). With no filter known
// (khatru's broadcast hook), the subscription matched already.
func publicForViewer(v policies.Viewer, ev *nostr.Event) bool {
	if !slices.Contains(publicKinds, ev.Kind) {
		return false
	}
	if v.Filter == nil {
		return true
	}
	recipient := ev.Tags.GetFirst([]string{"p", ""})
	return recipient != nil && slices.Contains(v.Filter.Tags["p"], (*recipient)[1])
}

// canServePublic reports whether a non-member's filter could match anything
// public: gift wraps, or no kinds at all (a liveness ping still gets EOSE).
func canServePublic(f nostr.Filter) bool {
	if len(f.Kinds) == 0 {
		return true
	}
	for _, k := range f.Kinds {
		if slices.Contains(publicKinds, k) {
			return true
		}
	}
	return false
}

func filteredQuery(q func(context.Context, nostr.Filter) (chan *nostr.Event, error), vis policies.VisibleFunc) func(context.Context, nostr.Filter) (chan *nostr.Event, error) {
	return func(ctx context.Context, f nostr.Filter) (chan *nostr.Event, error) {
		in, err := q(ctx, f)
		if err != nil || in == nil {
			return in, err
		}
		out := make(chan *nostr.Event)
		go func() {
			defer close(out)
			v := policies.Viewer{PubKey: policies.Authed(ctx), Filter: &f}
			for ev := range in {
				if khatru.IsInternalCall(ctx) || vis(v, ev) {
					out <- ev
				}
			}
		}()
		return out, nil
	}
}
