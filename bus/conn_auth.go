package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// errNoChallenge: the relay asked for authentication without ever sending
// a challenge, so there is nothing to sign.
var errNoChallenge = errors.New("bus: relay sent no auth challenge")

// okReply is the relay's answer to an EVENT or AUTH.
type okReply struct {
	ok     bool
	reason string
}

// authFlight is one AUTH exchange in progress; concurrent callers of
// authenticate share it instead of signing the same challenge twice.
type authFlight struct {
	done chan struct{}
	err  error
}

// setChallenge records the relay's challenge and, with a Signer, answers
// it in the background: the relay may send it at any time, not only on
// connect (it repeats it with an auth-required refusal).
func (s *session) setChallenge(ch string) {
	s.mu.Lock()
	s.challenge = ch
	s.mu.Unlock()
	s.chalOnce.Do(func() { close(s.challenged) })
	if s.c.opts.Signer == nil {
		return
	}
	s.c.wg.Add(1) // safe: the reader calling us is counted
	go func() {
		defer s.c.wg.Done()
		if err := s.authenticate(s.ctx); err != nil && s.ctx.Err() == nil {
			s.c.log.Warn("relay refused authentication", "err", err)
		}
	}()
}

func (s *session) authedPubKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authed
}

// authenticate answers the session's current challenge unless that was
// already done, joining an exchange already in flight.
func (s *session) authenticate(ctx context.Context) error {
	for {
		s.mu.Lock()
		if s.challenge == "" {
			s.mu.Unlock()
			return errNoChallenge
		}
		if s.authed != "" && s.authedFor == s.challenge {
			s.mu.Unlock()
			return nil
		}
		if f := s.flight; f != nil {
			s.mu.Unlock()
			select {
			case <-f.done:
				if f.err != nil {
					return f.err
				}
				continue // the challenge may have changed meanwhile
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		f := &authFlight{done: make(chan struct{})}
		s.flight = f
		challenge := s.challenge
		s.mu.Unlock()
		return s.runFlight(ctx, f, challenge)
	}
}

func (s *session) runFlight(ctx context.Context, f *authFlight, challenge string) error {
	pubkey, err := s.sendAuth(ctx, challenge)
	s.mu.Lock()
	if err == nil {
		s.authed, s.authedFor = pubkey, challenge
	}
	s.flight = nil
	f.err = err
	s.mu.Unlock()
	close(f.done)
	if err == nil {
		s.c.notify()
	}
	return err
}

// sendAuth signs a NIP-42 event for challenge, sends it and waits for the
// relay's OK. It returns the pubkey the relay accepted.
func (s *session) sendAuth(ctx context.Context, challenge string) (string, error) {
	ev := nostr.Event{Kind: nostr.KindClientAuthentication, CreatedAt: nostr.Now(),
		Tags: nostr.Tags{{"relay", s.c.url}, {"challenge", challenge}}}
	if err := s.c.opts.Signer.SignEvent(ctx, &ev); err != nil {
		return "", fmt.Errorf("bus: sign auth event: %w", err)
	}
	msg, err := json.Marshal(nostr.AuthEnvelope{Event: ev})
	if err != nil {
		return "", fmt.Errorf("bus: encode auth event: %w", err)
	}
	if err := s.request(ctx, ev.ID, msg); err != nil {
		return "", fmt.Errorf("bus: authenticate: %w", err)
	}
	return ev.PubKey, nil
}

// request sends msg and waits for the OK about id. It returns nil only on
// OK true, *RejectedError on OK false, and errNotSent (wrapping the cause)
// if the session died before msg was taken by the writer.
func (s *session) request(ctx context.Context, id string, msg []byte) error {
	ch, forget := s.expectOK(id)
	defer forget()
	if err := s.send(ctx, msg); err != nil {
		if ctx.Err() == nil {
			return &notSentError{err}
		}
		return err
	}
	select {
	case rep := <-ch:
		if rep.ok {
			return nil
		}
		return &RejectedError{Reason: rep.reason}
	case <-s.dead:
		return s.cause()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// notSentError marks a failure that happened before any byte of the
// message was written, which makes a retry on the next connection safe.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// expectOK registers interest in the OK for id before the message goes
// out, so a fast answer cannot be missed. Waiters for one id are served
// first come, first served, as the relay answers in order.
func (s *session) expectOK(id string) (<-chan okReply, func()) {
	ch := make(chan okReply, 1)
	s.mu.Lock()
	s.oks[id] = append(s.oks[id], ch)
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		list := s.oks[id]
		for i, c := range list {
			if c == ch {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(s.oks, id)
		} else {
			s.oks[id] = list
		}
	}
}

// resolveOK hands an OK to the oldest waiter for its event id; an OK no
// one waits for (the caller gave up) is dropped.
func (s *session) resolveOK(id string, rep okReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.oks[id]
	if len(list) == 0 {
		return
	}
	list[0] <- rep
	if len(list) == 1 {
		delete(s.oks, id)
	} else {
		s.oks[id] = list[1:]
	}
}
