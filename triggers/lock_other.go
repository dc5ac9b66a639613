//go:build !unix

package triggers

// lockDir does nothing where flock is unavailable: run one runner per
// state directory.
func lockDir(string) (func(), error) { return func() {}, nil }
