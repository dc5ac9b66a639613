package triggers

import (
	"fmt"
	"strings"
)

// matchRef reports whether the ref name matches pattern, where `*` matches
// any run of characters, `/` included, as in git refspecs: "refs/heads/*"
// matches "refs/heads/feature/x" too, which is what anyone who has written
// a fetch refspec expects. Every other character is literal.
func matchRef(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// checkRefPattern refuses patterns that could never match a ref.
func checkRefPattern(p string) error {
	if !strings.HasPrefix(p, "refs/") && !strings.HasPrefix(p, "*") {
		return fmt.Errorf("filter.refs: pattern %q must start with refs/ (or *)", p)
	}
	return nil
}
