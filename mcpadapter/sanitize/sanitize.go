// Package sanitize is the one sanitiser for chat content handed to a local
// agent. Team chat is untrusted input to a language model, so every piece of
// it goes through Text (message bodies) or Line (author names, channel names
// and other one-line fields), and every response that carries chat goes
// through Wrap, which puts a notice in front and encloses the content in a
// random boundary that the content cannot forge.
//
// Text, in order:
//   - removes characters a human cannot see but a model reads: control and
//     format characters (zero-width, bidi controls, Unicode tag characters),
//     variation selectors and blank fillers; all line breaks become '\n';
//   - outside Markdown code, decodes HTML entities, removes HTML comments,
//     <script>, <style> and <template> elements with their content and
//     every other tag (keeping its text), and spells out Markdown links and
//     images; code keeps its markup, since renderers show it literally;
//   - redacts e-mail addresses as [email] and phone numbers as [phone];
//   - replaces @name mentions and Nostr npub/nprofile references with
//     @member, keeping scoped package names such as @types/node.
//
// The exact rules, with examples, are in spec/vectors/sanitizer/README.md;
// the cases in that directory drive this package's tests.
package sanitize

import (
	"html"
	"io"
	"regexp"
	"strings"
)

// Options configures a Sanitizer. The zero value is what production uses.
type Options struct {
	// Disabled makes Text and Line return their input unchanged and Wrap
	// join its items with no notice and no boundary. It exists so that an
	// end-to-end test can prove it notices a missing sanitiser; never set it
	// outside tests.
	Disabled bool
	// Rand is where Wrap draws boundaries from; nil means crypto/rand. If
	// it fails or keeps producing a boundary that occurs in the content,
	// Wrap falls back to crypto/rand.
	Rand io.Reader
}

// Sanitizer sanitises chat content. It holds no mutable state, so one value
// can serve any number of goroutines.
type Sanitizer struct {
	opts Options
}

// New returns a Sanitizer with the given options.
func New(opts Options) *Sanitizer {
	return &Sanitizer{opts: opts}
}

// std serves the package-level functions.
var std = New(Options{})

// Text sanitises one message body with the default options.
func Text(body string) string { return std.Text(body) }

// Line sanitises a one-line field with the default options.
func Line(field string) string { return std.Line(field) }

// Wrap encloses already sanitised items with the default options.
func Wrap(items []string) string { return std.Wrap(items) }

// Text sanitises one message body: it strips invisible characters and
// markup, redacts e-mail addresses and phone numbers and neutralises
// mentions. The result is plain text that still needs Wrap before it is
// handed to the agent.
func (s *Sanitizer) Text(body string) string {
	if s.opts.Disabled {
		return body
	}
	var b strings.Builder
	for _, seg := range splitCode(cleanRunes(body)) {
		if seg.code {
			// Code is shown literally by every renderer, so nothing in it
			// is hidden from people; only personal data goes.
			b.WriteString(redact(seg.text))
		} else {
			b.WriteString(prose(seg.text))
		}
	}
	return tidy(b.String())
}

// Line sanitises a field that must stay on one line, such as an author's
// display name or a channel name: Text, then every run of whitespace,
// newlines included, becomes one space, so that the field cannot start a
// line of its own in the agent's view.
func (s *Sanitizer) Line(field string) string {
	if s.opts.Disabled {
		return field
	}
	return strings.Join(strings.Fields(s.Text(field)), " ")
}

// prose sanitises text outside Markdown code.
func prose(s string) string {
	// Entities are decoded first, and invisibles removed again, so that an
	// encoded tag or zero-width character is caught like a literal one.
	s = cleanRunes(html.UnescapeString(s))
	s = stripMarkup(s)
	s = spaceRunRE.ReplaceAllString(s, "$1 ")
	s = markdownLinks(s)
	s = redact(s)
	return mentions(s)
}

// spaceRunRE finds runs of spaces inside a line, which removed markup
// leaves behind (and which would split a phone number); indentation at the
// start of a line is kept.
var spaceRunRE = regexp.MustCompile(`([^ \n]) {2,}`)

// tidy trims trailing blanks from every line and squeezes runs of blank
// lines to one, so that removed markup leaves no gaps and content cannot
// push text out of view with empty lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" && blank {
			continue
		}
		blank = l == ""
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
