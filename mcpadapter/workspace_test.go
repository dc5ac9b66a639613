package mcpadapter

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/signer"
)

// The five tools are listed with schemas taken from their argument types.
func TestWorkspaceToolsListed(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.user, nil)
	res, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string][]string{}
	for _, tool := range res.Tools {
		schema := tool.InputSchema.(map[string]any)
		p, _ := schema["properties"].(map[string]any)
		props[tool.Name] = []string{}
		for k := range p {
			props[tool.Name] = append(props[tool.Name], k)
		}
		slices.Sort(props[tool.Name])
	}
	want := map[string][]string{"channels": {}, "read_channel": {"before", "channel", "limit"},
		"search": {"channel", "limit", "offset", "query"}, "inbox": {"since"},
		"post": {"channel", "content", "mentions", "reply_to"}}
	for name, args := range want {
		got, ok := props[name]
		if !ok || !slices.Equal(got, args) {
			t.Errorf("tool %s: arguments %v (listed %v), want %v", name, got, ok, args)
		}
	}
}

// A member of the private channel sees it with its metadata and reads its
// messages as threads; the public channel is listed with role none.
func TestWorkspaceChannelsAndThreads(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.user, nil)
	list := callOK(t, cs, "channels", nil)
	for _, want := range []string{"channel secret\n  name: Secret plans\n  about: Where we plan\n  private, closed; members: 2; your role: member",
		"channel general\n  name: General\n  public, open; members: 1; your role: none"} {
		if !strings.Contains(list, want) {
			t.Errorf("channels lacks %q:\n%s", want, list)
		}
	}
	page := callOK(t, cs, "read_channel", map[string]any{"channel": "secret"})
	rootAt := strings.Index(page, "\nmessage "+f.root.ID+" at ")
	replyAt := strings.Index(page, "\n  reply "+f.reply.ID+" at ")
	if rootAt < 0 || replyAt < rootAt || !strings.Contains(page, "\n  > agreed, ship the plan\n") {
		t.Fatalf("reply not nested under its root:\n%s", page)
	}
	if !strings.Contains(page, `"Owner Boss"`) || !strings.Contains(page, "next_before: none") {
		t.Errorf("author name or cursor missing:\n%s", page)
	}
}

// A workspace member outside the private channel learns nothing of it.
func TestWorkspaceNonMemberSeesNothing(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.outsider, nil)
	leaks := func(what, text string) {
		t.Helper()
		for _, s := range []string{"secret", "Secret", "plan", f.root.ID} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q to a non-member:\n%s", what, s, text)
			}
		}
	}
	list := callOK(t, cs, "channels", nil)
	if !strings.Contains(list, "channel general") {
		t.Errorf("public channel missing:\n%s", list)
	}
	leaks("channels", list)
	res := call(t, cs, "read_channel", map[string]any{"channel": "secret"})
	if e := bus.ResultError(res); e == nil || e.Code != bus.CodeNotFound {
		t.Errorf("read_channel of a private channel: %s", textOf(res))
	}
	leaks("inbox", callOK(t, cs, "inbox", nil))
	leaks("search", callOK(t, cs, "search", map[string]any{"query": "plan"}))
	if res := call(t, cs, "post", map[string]any{"channel": "secret", "content": "hi"}); !res.IsError {
		t.Error("a non-member could post")
	}
}

var cursorRE = regexp.MustCompile(`cursor: (\d+)`)

// inbox returns mentions and a cursor; from the cursor only new mentions
// come, even one sent in the cursor's own second.
func TestWorkspaceInboxCursor(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.user, nil)
	first := callOK(t, cs, "inbox", nil)
	m := cursorRE.FindStringSubmatch(first)
	if !strings.Contains(first, "message "+f.mention.ID+" in secret at ") || m == nil {
		t.Fatalf("inbox:\n%s", first)
	}
	if strings.Contains(first, f.root.ID) {
		t.Errorf("inbox shows a message that does not mention the user:\n%s", first)
	}
	since, _ := strconv.Atoi(m[1])
	again := callOK(t, cs, "inbox", map[string]any{"since": since})
	if strings.Contains(again, f.mention.ID) || !strings.Contains(again, ": 0, oldest first") {
		t.Fatalf("inbox from the cursor repeats:\n%s", again)
	}
	late := f.publishAt(t, nostr.Timestamp(since), 9, "one more look", nostr.Tag{"h", "secret"}, nostr.Tag{"p", f.user.PublicKey()})
	third := callOK(t, cs, "inbox", map[string]any{"since": since})
	if !strings.Contains(third, late.ID) || strings.Contains(third, f.mention.ID) {
		t.Fatalf("a mention in the cursor's second:\n%s", third)
	}
}

// post publishes as the user: a message with a mention, a reply to the
// root (root marker only) and a reply to a reply (root and reply markers).
func TestWorkspacePost(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.user, nil)
	owner := signer.EncodeNPub(f.owner.PublicKey())
	msg := f.postOK(t, cs, map[string]any{"channel": "secret", "content": "hi @owner <b>raw</b>", "mentions": []string{owner}})
	if msg.PubKey != f.user.PublicKey() || msg.Content != "hi @owner <b>raw</b>" || msg.Kind != 9 ||
		msg.Tags.FindWithValue("h", "secret") == nil || msg.Tags.FindWithValue("p", f.owner.PublicKey()) == nil {
		t.Fatalf("posted message: %+v", msg)
	}
	direct := f.postOK(t, cs, map[string]any{"channel": "secret", "content": "on it", "reply_to": f.root.ID})
	if !hasTag(direct.Tags, "e", f.root.ID, "", "root") || len(slices.Collect(direct.Tags.FindAll("e"))) != 1 {
		t.Errorf("reply to the root: %v", direct.Tags)
	}
	nested := f.postOK(t, cs, map[string]any{"channel": "secret", "content": "me too", "reply_to": f.reply.ID})
	if !hasTag(nested.Tags, "e", f.root.ID, "", "root") || !hasTag(nested.Tags, "e", f.reply.ID, "", "reply") ||
		nested.Tags.FindWithValue("p", f.owner.PublicKey()) == nil {
		t.Errorf("reply to a reply: %v", nested.Tags)
	}
	page := callOK(t, cs, "read_channel", map[string]any{"channel": "secret"})
	if !strings.Contains(page, "\n  reply "+nested.ID+" to "+f.reply.ID+" at ") {
		t.Errorf("reply to a reply not shown in its thread:\n%s", page)
	}
	for args, code := range map[string]string{"general": bus.CodeUnauthorized, "huge": bus.CodeInvalidParams} {
		in := map[string]any{"channel": args, "content": "x"}
		if args == "huge" {
			in = map[string]any{"channel": "secret", "content": strings.Repeat("x", maxPostBytes+1)}
		}
		if e := bus.ResultError(call(t, cs, "post", in)); e == nil || e.Code != code {
			t.Errorf("post %s: %+v, want %s", args, e, code)
		}
	}
}

func hasTag(tags nostr.Tags, want ...string) bool {
	return slices.ContainsFunc(tags, func(t nostr.Tag) bool { return slices.Equal(t, want) })
}

// search finds what the user may read, ranked by the relay (NIP-50), in
// one channel or all.
func TestWorkspaceSearch(t *testing.T) {
	f := newWSFixture(t)
	cs := startWorkspace(t, f.r, f.user, nil)
	hits := callOK(t, cs, "search", map[string]any{"query": "ready"})
	if !strings.Contains(hits, "message "+f.root.ID+" in secret at ") || strings.Contains(hits, f.mention.ID) {
		t.Errorf("search ready:\n%s", hits)
	}
	reply := callOK(t, cs, "search", map[string]any{"query": "agreed", "channel": "secret"})
	if !strings.Contains(reply, "message "+f.reply.ID+" in secret (reply in thread "+f.root.ID+")") {
		t.Errorf("search agreed:\n%s", reply)
	}
	if other := callOK(t, cs, "search", map[string]any{"query": "plan", "channel": "general"}); strings.Contains(other, "secret") {
		t.Errorf("search in general shows secret messages:\n%s", other)
	}
	if e := bus.ResultError(call(t, cs, "search", map[string]any{"query": " "})); e == nil || e.Code != bus.CodeInvalidParams {
		t.Errorf("empty query: %+v", e)
	}
	for _, off := range []int{-1, maxOffset + 1} {
		if e := bus.ResultError(call(t, cs, "search", map[string]any{"query": "plan", "offset": off})); e == nil || e.Code != bus.CodeInvalidParams {
			t.Errorf("offset %d: %+v", off, e)
		}
	}
}

// search pages: following the offset each full page gives reaches every
// hit once, and a last page says nothing of more.
func TestWorkspaceSearchPages(t *testing.T) {
	f := newWSFixture(t)
	var want []string
	for i := range 7 {
		ev := f.publish(t, 9, fmt.Sprintf("rollout step %d", i), nostr.Tag{"h", "general"})
		want = append(want, ev.ID)
	}
	cs := startWorkspace(t, f.r, f.user, nil)
	page := func(offset int) string {
		return callOK(t, cs, "search", map[string]any{"query": "rollout", "limit": 3, "offset": offset})
	}
	// The relay's index is eventually consistent: wait for the last post.
	for i := 0; i < 300 && !strings.Contains(page(6), "search: 1 messages"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	var seen []string
	offset := 0
	for range 5 {
		text := page(offset)
		for _, id := range want {
			if strings.Contains(text, id) {
				seen = append(seen, id)
			}
		}
		next := regexp.MustCompile(`offset=(\d+)`).FindStringSubmatch(text)
		if next == nil {
			break
		}
		offset, _ = strconv.Atoi(next[1])
	}
	slices.Sort(seen)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Fatalf("pages gave %d of the %d hits (%v), each once expected", len(seen), len(want), seen)
	}
}
