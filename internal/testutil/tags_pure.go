//go:build !libsecp256k1

package testutil

// buildTags are passed to the binaries end-to-end tests build.
const buildTags = ""
