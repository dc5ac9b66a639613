//go:build !linux

package bench

import "os/exec"

// dieWithParent has no portable equivalent outside Linux; stop still ends
// the relays on every normal path.
func dieWithParent(*exec.Cmd) {}

// raiseFDLimit leaves the limit alone outside Linux (the benchmark reads
// memory from /proc and is Linux-only in practice).
func raiseFDLimit(uint64) error { return nil }
