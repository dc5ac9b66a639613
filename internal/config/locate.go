package config

import (
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML decoder does not expose where a key was defined, and messages
// with a line number are much easier to act on, so lineOf finds the line
// with a small scanner. It is best effort and used for messages only: it
// understands [table] and [[array]] headers, dotted and quoted keys,
// multi-line strings and multi-line arrays, and answers 0 for anything else
// (such as keys inside inline tables).

// lineOf returns the 1-based line that defines key in data, or 0.
func lineOf(data []byte, key toml.Key) int {
	s := scanner{}
	for i, line := range strings.Split(string(data), "\n") {
		if path, ok := s.next(line); ok && slices.Equal(path, key) {
			return i + 1
		}
	}
	return 0
}

// scanner carries the state of lineOf between lines.
type scanner struct {
	table   toml.Key // the current [table]
	closing string   // the delimiter ending an open multi-line string
	depth   int      // unclosed '[' of a multi-line array value
}

// next consumes one line and returns the key it defines, if any.
func (s *scanner) next(line string) (toml.Key, bool) {
	if s.closing != "" {
		if strings.Count(line, s.closing)%2 == 1 {
			s.closing = ""
		}
		return nil, false
	}
	line = strings.TrimSpace(stripComment(line))
	if s.depth > 0 {
		s.depth += brackets(line)
		return nil, false
	}
	switch {
	case line == "":
		return nil, false
	case line[0] == '[':
		s.table = headerKey(line)
		return s.table, true
	}
	k, value, ok := strings.Cut(line, "=")
	if !ok {
		return nil, false
	}
	s.value(strings.TrimSpace(value))
	return append(append(toml.Key{}, s.table...), splitDotted(k)...), true
}

// value records whether a value opens a multi-line string or array.
func (s *scanner) value(v string) {
	for _, delim := range []string{`"""`, `'''`} {
		if strings.HasPrefix(v, delim) && strings.Count(v, delim) == 1 {
			s.closing = delim
			return
		}
	}
	if strings.HasPrefix(v, "[") {
		s.depth = brackets(v)
	}
}

// headerKey returns the key of a "[a.b]" or "[[a.b]]" header line.
func headerKey(line string) toml.Key {
	inner := strings.TrimLeft(line, "[")
	if i := strings.IndexByte(inner, ']'); i >= 0 {
		inner = inner[:i]
	}
	return splitDotted(inner)
}

// splitDotted splits a dotted key, trimming spaces and quotes per segment.
func splitDotted(k string) toml.Key {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return parts
}

// stripComment removes a trailing # comment that is outside quotes.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && r == '#':
			return line[:i]
		}
	}
	return line
}

// brackets returns the '[' count minus the ']' count outside quotes.
func brackets(s string) int {
	n := 0
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && r == '[':
			n++
		case quote == 0 && r == ']':
			n--
		}
	}
	return n
}
