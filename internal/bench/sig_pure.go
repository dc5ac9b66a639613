//go:build !libsecp256k1

package bench

// SignatureBackend names how this binary signs and verifies Nostr events:
// go-nostr's default, pure Go (btcec). Signature work dominates a tool
// call, so bus numbers mean little without it.
const SignatureBackend = "pure Go (btcec)"
