package gitbridge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
	"toolbus/signer"
)

// The push message names pusher, repository and every changed ref (old ->
// new, created, deleted), caps the ref lines, and references the repository
// and the state event; an unbound repository has no message.
func TestChannelMessage(t *testing.T) {
	owner, pusher := mustKey(t), mustKey(t)
	zero := strings.Repeat("0", 40)
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	state := &nostr.Event{ID: strings.Repeat("e", 64), PubKey: strings.Repeat("f", 64), Kind: 30618,
		Tags: nostr.Tags{{"d", owner.PublicKey() + "/app"}}}
	p := gitbridge.Push{Owner: owner.PublicKey(), Repo: "app", Pusher: pusher.PublicKey(),
		URL: "https://relay.example/git/" + owner.NPub() + "/app.git", State: state,
		Updates: []gitbridge.RefUpdate{{Old: a, New: b, Ref: "refs/heads/main"},
			{Old: zero, New: a, Ref: "refs/heads/topic"}, {Old: b, New: zero, Ref: "refs/tags/v1"}}}
	if p.ChannelMessage() != nil {
		t.Fatal("message for an unbound repository")
	}
	p.Channel = "ci"
	ev := p.ChannelMessage()
	want := pusher.NPub() + " pushed to " + owner.NPub() + "/app: " + p.URL + "\n" +
		"refs/heads/main " + a + " -> " + b + "\n" +
		"refs/heads/topic created " + a + "\n" +
		"refs/tags/v1 deleted (was " + b + ")"
	if ev.Kind != 9 || ev.Content != want || ev.CreatedAt == 0 {
		t.Fatalf("kind %d at %d, content:\n%s\nwant:\n%s", ev.Kind, ev.CreatedAt, ev.Content, want)
	}
	wantTags := nostr.Tags{{"h", "ci"}, {"a", "30617:" + owner.PublicKey() + ":app"},
		{"a", "30618:" + state.PubKey + ":" + owner.PublicKey() + "/app"}, {"e", state.ID, "", "mention"}}
	if fmt.Sprint(ev.Tags) != fmt.Sprint(wantTags) {
		t.Fatalf("tags %v, want %v", ev.Tags, wantTags)
	}

	// Without a state event there is nothing to reference; a huge push is
	// summarised.
	p.State = nil
	p.Updates = nil
	for i := range gitbridge.MaxMessageRefs + 7 {
		p.Updates = append(p.Updates, gitbridge.RefUpdate{Old: zero, New: a, Ref: fmt.Sprintf("refs/heads/b%03d", i)})
	}
	ev = p.ChannelMessage()
	lines := strings.Split(ev.Content, "\n")
	if len(lines) != gitbridge.MaxMessageRefs+2 || lines[len(lines)-1] != "… and 7 more refs" {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if len(ev.Tags) != 2 {
		t.Fatalf("tags without a state: %v", ev.Tags)
	}
}

func mustKey(t *testing.T) *signer.Local {
	t.Helper()
	k, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
