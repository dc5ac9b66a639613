//go:build libsecp256k1

package testutil

// buildTags are passed to the binaries end-to-end tests build, so they
// verify signatures the same way as the test binary.
const buildTags = "libsecp256k1"
