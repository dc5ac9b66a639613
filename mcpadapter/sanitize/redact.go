package sanitize

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// emailRE matches an address with an ASCII local part and a dotted domain
// ending in a letter TLD or an IDN one (xn--). ASCII only, so that CJK text
// glued to an address stays out of it. Group 1 is the first domain label.
var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@([A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)` +
	`(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.(?:[A-Za-z]{2,24}|xn--[A-Za-z0-9\-]{2,59})`)

// retinaRE matches the first domain label of "icon@2x.png", a file name.
var retinaRE = regexp.MustCompile(`^[0-9]+x$`)

// phoneRE finds phone number candidates, one shape per group, each then
// checked by validPhone and for its surroundings:
//  1. international: "+" and country code, then groups, e.g. +44 20 7946 0958;
//  2. area code in parentheses, e.g. (415) 555-0132, (020) 7946 0958;
//  3. North American 3-3-4 with separators, e.g. 415-555-0132, 1-800-555-0199;
//  4. national with a trunk 0 and separators, e.g. 020 7946 0958.
//
// A bare run of digits without "+" is never a phone number: it is far more
// often an id, a timestamp or a count.
var phoneRE = regexp.MustCompile(`(\+[1-9][0-9]{0,2}(?:[ .\-]?(?:\([0-9]{1,4}\)|[0-9]{1,5})){1,6})` +
	`|(\([0-9]{2,5}\)[ .\-]?[0-9]{3,4}[ .\-]?[0-9]{3,4})` +
	`|((?:1[ .\-])?[0-9]{3}[ .\-][0-9]{3}[ .\-][0-9]{4})` +
	`|(0[0-9]{1,4}(?:[ \-][0-9]{2,8}){1,4})`)

// npubRE matches a Nostr reference to a person: a bech32 npub or nprofile,
// with or without the nostr: URI scheme.
var npubRE = regexp.MustCompile(`(?:nostr:)?n(?:pub|profile)1[023456789acdefghjklmnpqrstuvwxyz]{20,}`)

// redact replaces personal data: e-mail addresses, phone numbers and Nostr
// public keys. It runs on code too, unlike the other rules.
func redact(s string) string {
	s = emailRE.ReplaceAllStringFunc(s, func(m string) string {
		if retinaRE.MatchString(emailRE.FindStringSubmatch(m)[1]) {
			return m
		}
		return "[email]"
	})
	s = replaceMatches(s, npubRE, func(m []int) (int, bool) {
		return m[1], m[0] == 0 || !isASCIIAlnum(s[m[0]-1])
	}, mentionText)
	return replaceMatches(s, phoneRE, func(m []int) (int, bool) { return phoneEnd(s, m) }, "[phone]")
}

// replaceMatches replaces with repl each match of re in s that check
// accepts; check may also shorten the match by returning an earlier end.
// After a rejected match the search resumes one byte further on, not after
// it, so that a number glued to a rejected one is still found.
func replaceMatches(s string, re *regexp.Regexp, check func(m []int) (int, bool), repl string) string {
	var b strings.Builder
	last := 0
	for from := 0; from < len(s); {
		m := re.FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
		end, ok := check(m)
		if !ok {
			from = m[0] + 1
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(repl)
		last, from = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// phoneEnd decides whether the phoneRE match m in s is a phone number and
// where it ends. The character before must not continue a word or a number
// (v1.415…, x-415…); a match that runs on into more digit groups is cut
// back group by group until it is valid, so that "+44 20 7946 0958 2024"
// keeps its year.
func phoneEnd(s string, m []int) (int, bool) {
	if r, _ := utf8.DecodeLastRuneInString(s[:m[0]]); m[0] > 0 &&
		(isWordRune(r) || strings.ContainsRune(".-+/@\\", r)) {
		return 0, false
	}
	shape := 1
	for shape < 4 && m[2*shape] < 0 {
		shape++
	}
	end := m[1]
	if k := strings.IndexAny(s[m[0]:end], " .-("); shape == 1 && k > 8 {
		end = m[0] + k // compact E.164 (+14155550132) ends at its digits
	}
	for ; end > m[0]; end = lastSep(s[m[0]:end], m[0]) {
		if validPhone(s[m[0]:end], shape) && !continues(s[end:]) {
			return end, true
		}
	}
	return 0, false
}

// lastSep returns the offset (in the whole text) of the last separator in
// candidate, which starts at base, or base when there is none.
func lastSep(candidate string, base int) int {
	if k := strings.LastIndexAny(candidate, " .-"); k > 0 {
		return base + k
	}
	return base
}

// continues reports whether rest, the text after a candidate, carries on
// the same token: a letter or digit, or '.', '-', '/' or ':' before a digit
// (a longer number, a version, a date or a time).
func continues(rest string) bool {
	r, n := utf8.DecodeRuneInString(rest)
	if n == 0 {
		return false
	}
	if isWordRune(r) {
		return true
	}
	return strings.ContainsRune(".-/:", r) && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9'
}

// validPhone checks a candidate of the given phoneRE shape (1–4) by its
// digit count and, for the shapes without "+" or parentheses, by using one
// separator throughout, which dates and version numbers rarely do at these
// lengths.
func validPhone(c string, shape int) bool {
	digits, seps := 0, ""
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch >= '0' && ch <= '9':
			digits++
		case ch == ' ' || ch == '.' || ch == '-':
			if !strings.ContainsRune(seps, rune(ch)) {
				seps += string(ch)
			}
		}
	}
	switch shape {
	case 1:
		if len(c) > 2 && c[:2] == "+1" && (c[2] < '0' || c[2] > '9') {
			return digits == 11 // North America: +1 and ten digits
		}
		return digits >= 8 && digits <= 15 // E.164 allows at most 15
	case 2:
		return digits >= 9 && digits <= 12
	case 3:
		return len(seps) == 1 && (digits == 10 || digits == 11)
	}
	return len(seps) == 1 && digits >= 9 && digits <= 11
}
