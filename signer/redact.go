package signer

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// A Local must never print its secret, whichever way it is printed. Format
// and the marshalers have value receivers so that a dereferenced Local (or a
// Local stored by value in a struct) is covered as well as *Local; String,
// GoString and LogValue keep pointer receivers so that they are nil-safe.
var (
	_ fmt.Formatter  = Local{}
	_ json.Marshaler = Local{}
	_ slog.LogValuer = (*Local)(nil)
)

// redacted is the one printable form of a Local.
func redacted(pubHex string) string { return "signer.Local{pubkey:" + pubHex + "}" }

// String redacts the secret so that logging a Local is safe.
func (l *Local) String() string {
	if l == nil {
		return "signer.Local(nil)"
	}
	return redacted(l.pubHex)
}

// GoString redacts the secret for %#v.
func (l *Local) GoString() string { return l.String() }

// Format prints the redacted form for every verb and flag. Without it, verbs
// such as %x or %d would make fmt walk the struct by reflection.
func (l Local) Format(f fmt.State, _ rune) {
	_, _ = f.Write([]byte(redacted(l.pubHex)))
}

// MarshalText redacts to the npub. An npub rather than hex is deliberate:
// ParseSecret rejects npubs, so a Local accidentally written to a config or
// key file and read back fails loudly instead of silently becoming a
// different identity (a hex public key would parse as a valid secret).
// There is no UnmarshalText: secrets enter only through ParseSecret and the
// loaders.
func (l Local) MarshalText() ([]byte, error) {
	npub, err := npubOf(l.pubHex)
	return []byte(npub), err
}

// MarshalJSON redacts to the npub as a JSON string, for the reasons given at
// MarshalText; it exists so that JSON log handlers and API responses that
// embed a Local show its identity.
func (l Local) MarshalJSON() ([]byte, error) {
	npub, err := npubOf(l.pubHex)
	if err != nil {
		return nil, err
	}
	return json.Marshal(npub)
}

// LogValue makes slog log only the hex public key, which is how relays and
// clients identify a key in their own logs.
func (l *Local) LogValue() slog.Value {
	if l == nil {
		return slog.StringValue("")
	}
	return slog.StringValue(l.pubHex)
}

// npubOf encodes a Local's public key, refusing the zero Local rather than
// emitting an empty identity.
func npubOf(pubHex string) (string, error) {
	if pubHex == "" {
		return "", fmt.Errorf("signer: marshal of an empty Local")
	}
	return EncodeNPub(pubHex), nil
}
