package relay_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
)

// NIP-50: ranked full text over messages, and only over those the reader
// may see.
func TestSearchRespectsVisibility(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	outsider := testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", outsider.PublicKey()); err != nil {
		t.Fatal(err)
	}
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	for _, ev := range []nostr.Event{
		testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "infra"}, nostr.Tag{"private"}),
		testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "lobby"}),
		testutil.Signed(t, r.Member, 9, "the kubernetes upgrade plan is secret", nostr.Tag{"h", "infra"}),
		testutil.Signed(t, r.Member, 9, "kubernetes kubernetes: everyone should learn kubernetes", nostr.Tag{"h", "lobby"}),
		testutil.Signed(t, r.Member, 9, "lunch at noon", nostr.Tag{"h", "lobby"}),
		testutil.Signed(t, r.Member, 9, "a passing mention of kubernetes", nostr.Tag{"h", "lobby"}),
	} {
		c.SendJSON([]any{"EVENT", ev})
		c.ExpectAccepted()
	}
	search := func(conn *testutil.RawConn, id string, f nostr.Filter) []string {
		conn.SendJSON([]any{"REQ", id, f})
		var out []string
		for _, m := range conn.UntilEOSE(id) {
			var ev nostr.Event
			json.Unmarshal(m[2], &ev)
			out = append(out, ev.Content)
		}
		return out
	}
	// The index is eventually consistent: wait until the last post is in.
	var mine []string
	for i := 0; i < 200 && len(mine) < 3; i++ {
		time.Sleep(10 * time.Millisecond)
		mine = search(c, fmt.Sprint("w", i), nostr.Filter{Kinds: []int{9}, Search: "kubernetes"})
	}
	if len(mine) != 3 || !strings.HasPrefix(mine[0], "kubernetes kubernetes") {
		t.Fatalf("member: want 3 hits, the densest first, got %q", mine)
	}
	in := search(c, "s2", nostr.Filter{Kinds: []int{9}, Search: "kubernetes", Tags: nostr.TagMap{"h": {"infra"}}})
	if len(in) != 1 || !strings.Contains(in[0], "secret") {
		t.Fatalf("member, #h infra: %q", in)
	}
	o := testutil.DialRaw(t, r.URL)
	o.Auth(outsider, r.URL)
	theirs := search(o, "s3", nostr.Filter{Kinds: []int{9}, Search: "kubernetes"})
	for _, hit := range theirs {
		if strings.Contains(hit, "secret") {
			t.Fatalf("outsider found a private channel's message: %q", theirs)
		}
	}
	if len(theirs) != 2 {
		t.Fatalf("outsider: want the 2 public hits, got %q", theirs)
	}
}

// TestSearchPagesByOffset pages a ranked search with the offset:N
// extension: every visible hit comes exactly once, in rank order across
// pages, including low-ranked hits newer than high-ranked ones (which
// paging by until would skip), and a private channel's hits are neither
// shown nor counted in the offset.
func TestSearchPagesByOffset(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	outsider := testutil.NewKey(t)
	if _, err := relay.Manage(ctx5(t), r.HTTPURL, r.Admin, "allowpubkey", outsider.PublicKey()); err != nil {
		t.Fatal(err)
	}
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	publish := func(ev nostr.Event) {
		c.SendJSON([]any{"EVENT", ev})
		c.ExpectAccepted()
	}
	publish(testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "lobby"}))
	publish(testutil.Signed(t, r.Member, 9007, "", nostr.Tag{"h", "infra"}, nostr.Tag{"private"}))
	// Older posts say "deploy" more often, so they rank higher; the newest
	// rank lowest. Every third post is in the private channel.
	const posts = 24
	base := nostr.Now() - posts
	public := 0
	for i := range posts {
		channel := "lobby"
		if i%3 == 2 {
			channel = "infra"
		} else {
			public++
		}
		text := strings.Repeat("deploy ", posts-i) + fmt.Sprintf("post %d", i)
		ev := nostr.Event{Kind: 9, CreatedAt: base + nostr.Timestamp(i), Content: text,
			Tags: nostr.Tags{{"h", channel}}}
		if err := r.Member.SignEvent(ctx5(t), &ev); err != nil {
			t.Fatal(err)
		}
		publish(ev)
	}
	o := testutil.DialRaw(t, r.URL)
	o.Auth(outsider, r.URL)
	page := func(n, offset int) []string {
		id := fmt.Sprintf("p%d-%d", offset, n)
		o.SendJSON([]any{"REQ", id, nostr.Filter{Kinds: []int{9}, Limit: n, Search: fmt.Sprintf("deploy offset:%d", offset)}})
		var out []string
		for _, m := range o.UntilEOSE(id) {
			var ev nostr.Event
			json.Unmarshal(m[2], &ev)
			out = append(out, ev.Content[strings.LastIndex(ev.Content, "post "):])
		}
		return out
	}
	// The index is eventually consistent: wait until every post is in.
	for i := 0; i < 300 && len(page(100, 0)) < public; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	var all []string
	for offset := 0; offset < 100; offset += 5 {
		got := page(5, offset)
		all = append(all, got...)
		if len(got) < 5 {
			break
		}
	}
	var want []string
	for i := range posts {
		if i%3 != 2 {
			want = append(want, fmt.Sprintf("post %d", i))
		}
	}
	if strings.Join(all, ",") != strings.Join(want, ",") {
		t.Fatalf("pages joined:\n got %v\nwant %v (rank order, public only, each once)", all, want)
	}
}
