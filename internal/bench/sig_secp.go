//go:build libsecp256k1

package bench

// SignatureBackend names how this binary signs and verifies Nostr events:
// go-nostr's cgo build of the vendored libsecp256k1. Signature work
// dominates a tool call, so bus numbers mean little without it.
const SignatureBackend = "libsecp256k1 (cgo)"
