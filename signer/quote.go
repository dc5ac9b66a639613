package signer

import "strings"

// shellQuote quotes path for the fix-it commands in error messages, so that
// a path with spaces or quotes can be pasted into a shell as printed.
func shellQuote(path string) string {
	if path != "" && strings.IndexFunc(path, needsQuote) < 0 {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("/._-+,:@=%", r)
}
