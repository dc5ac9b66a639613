package policies

import (
	"context"

	"github.com/fiatjaf/khatru"
)

// Conn is what a rule may know about the connection a message arrived on.
// toolbus's engine attaches one to every hook context with [WithConn].
type Conn interface {
	// AuthedPubKey is the NIP-42 authenticated public key, or "".
	AuthedPubKey() string
	// RemoteIP is the client address (after trusted proxy headers).
	RemoteIP() string
}

type connKey struct{}

// WithConn returns ctx carrying c for the rules called under it.
func WithConn(ctx context.Context, c Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// ConnFrom returns the connection attached with WithConn, if any.
func ConnFrom(ctx context.Context) (Conn, bool) {
	c, ok := ctx.Value(connKey{}).(Conn)
	return c, ok
}

// Authed returns the authenticated public key of the caller, or "".
// It understands toolbus's engine and falls back to khatru's.
func Authed(ctx context.Context) string {
	if c, ok := ConnFrom(ctx); ok {
		return c.AuthedPubKey()
	}
	return khatru.GetAuthed(ctx)
}

// IP returns the caller's address, or "" when unknown.
func IP(ctx context.Context) string {
	if c, ok := ConnFrom(ctx); ok {
		return c.RemoteIP()
	}
	return khatru.GetIP(ctx)
}
