package fallback

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// globRule is one -g GLOB (include) or -g !GLOB (exclude).
type globRule struct {
	re      *regexp.Regexp
	exclude bool
	// full: the glob has a slash, so it matches the path from the search
	// root; otherwise it matches the base name at any depth, as in
	// .gitignore and ripgrep.
	full bool
}

// parseGlob turns a ripgrep glob into a rule. Supported syntax: * ? [..]
// [!..] {a,b} ** and a leading ! for exclusion.
func parseGlob(g string) (globRule, error) {
	r := globRule{}
	if strings.HasPrefix(g, "!") {
		r.exclude, g = true, g[1:]
	}
	g = strings.TrimSuffix(g, "/")
	if g == "" {
		return r, fmt.Errorf("empty glob (fallback rg)")
	}
	r.full = strings.Contains(g, "/")
	g = strings.TrimPrefix(g, "/")
	re, err := regexp.Compile("^" + globExpr(g) + "$")
	if err != nil {
		return r, fmt.Errorf("bad glob %q: %v (fallback rg)", g, err)
	}
	r.re = re
	return r, nil
}

// globExpr translates glob syntax to a regular expression. A * never
// crosses a slash; ** does, and **/ also matches no directory at all.
func globExpr(g string) string {
	var b strings.Builder
	braces := 0
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[' && strings.IndexByte(g[i+1:], ']') > 0:
			end := i + 1 + strings.IndexByte(g[i+1:], ']')
			class := g[i+1 : end]
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = end
		case c == '{':
			braces++
			b.WriteString("(?:")
		case c == '}' && braces > 0:
			braces--
			b.WriteString(")")
		case c == ',' && braces > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

// globsAllow applies the rules to rel, a slash-separated path relative to
// the search root. The last matching rule wins. A file matching no rule
// is allowed only when there are no include rules; a directory is only
// ever pruned by an exclude rule, so that includes like *.go still find
// files in subdirectories.
func globsAllow(rules []globRule, rel string, isDir bool) bool {
	hasInclude := false
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		hasInclude = hasInclude || !r.exclude
		subject := rel
		if !r.full {
			subject = path.Base(rel)
		}
		if r.re.MatchString(subject) {
			return !r.exclude
		}
	}
	return isDir || !hasInclude
}
