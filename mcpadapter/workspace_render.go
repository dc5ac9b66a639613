package mcpadapter

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

const (
	// maxBodyBytes caps one message body as returned (after sanitising):
	// the sanitiser applies no limit, and a page of 200 messages must stay
	// something an agent can read.
	maxBodyBytes = 8 << 10
	// maxNameRunes caps a display name.
	maxNameRunes = 64
)

// A message is shown as a header line, then its body with every line
// quoted ("> "). Header lines never start with '>', so a body cannot pose
// as another message or as a reply by someone else.
//
//	message <id> at <RFC3339> by <npub1abcdefg…wxyz> "<name>" (you)
//	> body
//	  reply <id> to <parent id> at … by …
//	  > body

// names maps authors to display names.
type names map[string]string

// lookupNames fetches the kind 0 profiles of the authors of evs. Names are
// a convenience: if the lookup fails, messages show keys only.
func (w *workspace) lookupNames(ctx context.Context, evs []*nostr.Event) names {
	seen := map[string]bool{}
	var authors []string
	for _, ev := range evs {
		if !seen[ev.PubKey] {
			seen[ev.PubKey] = true
			authors = append(authors, ev.PubKey)
		}
	}
	out := names{}
	if len(authors) == 0 {
		return out
	}
	profiles, err := w.query(ctx, nostr.Filter{Kinds: []int{kindProfile}, Authors: authors})
	if err != nil {
		return out
	}
	at := map[string]nostr.Timestamp{}
	for _, p := range profiles {
		if n := profileName(p.Content); n != "" && p.CreatedAt >= at[p.PubKey] {
			out[p.PubKey], at[p.PubKey] = n, p.CreatedAt
		}
	}
	return out
}

// profileName is a profile's display_name, else its name.
func profileName(content string) string {
	var p struct {
		Name        string `json:"name"`
		DisplayName string `json:"display_name"`
	}
	if json.Unmarshal([]byte(content), &p) != nil {
		return ""
	}
	if p.DisplayName != "" {
		return p.DisplayName
	}
	return p.Name
}

// author labels a pubkey: a short npub, the sanitised display name, and
// whether it is the user.
func (w *workspace) author(pk string, n names) string {
	npub := signer.EncodeNPub(pk)
	s := npub
	if len(npub) > 16 {
		s = npub[:12] + "…" + npub[len(npub)-4:]
	}
	if name := truncateRunes(w.san.Line(n[pk]), maxNameRunes); name != "" {
		s += ` "` + name + `"`
	}
	if pk == w.me {
		s += " (you)"
	}
	return s
}

// header is a message's first line; what names the kind of line ("message",
// "reply", ...) and extra goes after the id (channel, parent).
func (w *workspace) header(indent, what string, ev *nostr.Event, extra string, n names) string {
	return indent + what + " " + ev.ID + extra + " at " + rfc3339(ev.CreatedAt) + " by " + w.author(ev.PubKey, n)
}

// body is the sanitised, capped, quoted content of ev.
func (w *workspace) body(indent string, ev *nostr.Event) string {
	text := w.san.Text(ev.Content)
	if len(text) > maxBodyBytes {
		text = truncateBytes(text, maxBodyBytes) + "\n[truncated]"
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(indent+"> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// message renders ev at top level.
func (w *workspace) message(ev *nostr.Event, extra string, n names) string {
	return w.header("", "message", ev, extra, n) + "\n" + w.body("", ev)
}

func rfc3339(ts nostr.Timestamp) string {
	return time.Unix(int64(ts), 0).UTC().Format(time.RFC3339)
}

// truncateBytes cuts s to at most n bytes on a rune boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// threadRefs returns the NIP-10 root and parent ("reply") of ev, both ""
// for a message that starts a thread. Only marked e tags count: unmarked
// ones are the deprecated positional scheme or quotes, and toolbus clients
// always mark. A reply to the root carries only the root marker.
func threadRefs(ev *nostr.Event) (root, parent string) {
	for _, t := range ev.Tags {
		if len(t) < 4 || t[0] != "e" || !nostr.IsValid32ByteHex(t[1]) {
			continue
		}
		switch t[3] {
		case "root":
			root = t[1]
		case "reply":
			parent = t[1]
		}
	}
	if root == "" {
		root = parent
	}
	if parent == "" {
		parent = root
	}
	return root, parent
}

// channelOf is ev's channel, "" if it has no valid one.
func channelOf(ev *nostr.Event) string {
	if t := ev.Tags.Find("h"); t != nil && groupIDRE.MatchString(t[1]) {
		return t[1]
	}
	return ""
}
