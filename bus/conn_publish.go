package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// RejectedError is the relay's refusal: the reason of an OK false for a
// published event or AUTH, or of a CLOSED ending a subscription.
type RejectedError struct {
	// Reason is the relay's message as sent, e.g. "restricted: not a
	// member of this workspace".
	Reason string
}

// Error implements error.
func (e *RejectedError) Error() string {
	return "bus: relay refused: " + e.Reason
}

// Prefix returns the NIP-01 machine-readable prefix of the reason without
// its colon ("auth-required", "restricted", "rate-limited", ...), or "" if
// the reason has none.
func (e *RejectedError) Prefix() string {
	word, _, found := strings.Cut(e.Reason, ":")
	if !found || word == "" || strings.ContainsAny(word, " \t") {
		return ""
	}
	return word
}

// Publish sends ev, which must be signed, and waits for the relay's OK.
//
// It returns nil only when the relay answered OK true (the event is stored
// or, for ephemeral kinds, accepted). OK false yields a *RejectedError;
// when its prefix is auth-required and a Signer is set, Publish
// authenticates and tries once more. If the connection drops after ev was
// sent but before the OK, the error wraps ErrDisconnected: the relay may
// have stored ev, and the caller decides whether to publish again. While
// disconnected, Publish waits for the next connection (it never queues);
// when ctx ends first it returns ctx's error, and ErrClosed after Close.
func (c *Conn) Publish(ctx context.Context, ev *nostr.Event) error {
	msg, err := json.Marshal(nostr.EventEnvelope{Event: *ev})
	if err != nil {
		return fmt.Errorf("bus: encode event: %w", err)
	}
	s, err := c.publishOnce(ctx, ev.ID, msg)
	var rej *RejectedError
	if c.opts.Signer == nil || !errors.As(err, &rej) || rej.Prefix() != "auth-required" {
		return err
	}
	c.log.Debug("relay wants authentication before this event; retrying after AUTH", "id", ev.ID)
	if aerr := s.authenticate(ctx); aerr != nil {
		return fmt.Errorf("%w (authentication failed: %w)", err, aerr)
	}
	_, err = c.publishOnce(ctx, ev.ID, msg)
	return err
}

// publishOnce sends msg on the current session and waits for the OK about
// id. A session that dies before the message was written is replaced by
// the next one: nothing reached the relay, so nothing can be duplicated.
func (c *Conn) publishOnce(ctx context.Context, id string, msg []byte) (*session, error) {
	for {
		s, err := c.ready(ctx)
		if err != nil {
			return nil, err
		}
		err = s.request(ctx, id, msg)
		var notSent *notSentError
		if errors.As(err, &notSent) {
			continue
		}
		if err != nil && !errors.As(err, new(*RejectedError)) {
			err = fmt.Errorf("bus: publish %s: %w", id, err)
		}
		return s, err
	}
}
