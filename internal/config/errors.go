package config

import (
	"errors"
	"fmt"
	"strings"
)

// KeyError is one problem with one configuration key. Load and Validate
// return these (joined with errors.Join when there are several) so that a
// caller can find the offending keys with errors.As.
type KeyError struct {
	// File is the configuration file's name, or "" when not known.
	File string
	// Line is the 1-based line that sets Key, or 0 when not known (for
	// example when the value is a default, or set in an inline table).
	Line int
	// Key is the dotted TOML key, with [i] for a list element,
	// e.g. "workspace.members[2]".
	Key string
	// Problem says what is wrong. It never quotes more than a short prefix
	// of the value, because a misplaced secret key must not reach the logs.
	Problem string
}

// Error formats the problem as "config: FILE:LINE: KEY: PROBLEM", the
// position shape editors and terminals recognise.
func (e *KeyError) Error() string {
	return "config: " + where(e.File, e.Line) + e.Key + ": " + e.Problem
}

// where renders the "FILE:LINE: " prefix of a message, omitting the parts
// that are not known.
func where(file string, line int) string {
	switch {
	case file != "" && line > 0:
		return fmt.Sprintf("%s:%d: ", file, line)
	case file != "":
		return file + ": "
	case line > 0:
		return fmt.Sprintf("line %d: ", line)
	}
	return ""
}

// keyErrors returns the *KeyError values inside err, which may be a single
// error or an errors.Join of several.
func keyErrors(err error) []*KeyError {
	var out []*KeyError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			out = append(out, keyErrors(e)...)
		}
		return out
	}
	var ke *KeyError
	if errors.As(err, &ke) {
		out = append(out, ke)
	}
	return out
}

// preview returns at most the first few characters of a bad value followed
// by an ellipsis: enough to recognise which entry is meant, too little to
// leak a secret key pasted into the wrong place.
func preview(s string) string {
	const max = 8
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", string(r[:max]))
}

// quote returns s quoted for an error message, clipped so that a pasted
// blob cannot flood the log. Use preview instead for anything key-like.
func quote(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", string(r[:max]))
}
