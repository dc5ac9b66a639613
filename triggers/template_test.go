package triggers

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

const owner = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"

func stateEvent(id string, at int64, refs ...string) *nostr.Event {
	tags := nostr.Tags{{"d", owner + "/app"}, {"clone", "http://relay/git/npub/app.git"}, {"HEAD", "ref: refs/heads/main"}}
	for i := 0; i+1 < len(refs); i += 2 {
		tags = append(tags, nostr.Tag{refs[i], refs[i+1]})
	}
	return &nostr.Event{ID: id, Kind: nostr.KindRepositoryState, CreatedAt: nostr.Timestamp(at), Tags: tags}
}

func TestRepoChanges(t *testing.T) {
	first, err := parseState(stateEvent("a", 1, "refs/heads/main", "m1", "refs/tags/v1", "t1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.forPatterns(nil); got.Ref != "refs/heads/main" || got.Commit != "m1" || got.Branch != "main" {
		t.Fatalf("first state: picked %+v", got)
	}
	second, _ := parseState(stateEvent("b", 2, "refs/heads/main", "m1", "refs/heads/feat", "f1", "refs/tags/v2", "t2"), first)
	names := []string{}
	for _, c := range second.Changed {
		names = append(names, c.Name+":"+c.Old+">"+c.New)
	}
	if want := "refs/heads/feat:>f1,refs/tags/v1:t1>,refs/tags/v2:>t2"; strings.Join(names, ",") != want {
		t.Fatalf("changes %v, want %s", names, want)
	}
	if got := second.forPatterns(nil); got.Ref != "refs/heads/feat" {
		t.Fatalf("picked %s, want the changed branch", got.Ref)
	}
	if got := second.forPatterns([]string{"refs/tags/*"}); got.Ref != "refs/tags/v2" || got.Branch != "v2" {
		t.Fatalf("picked %+v for tags", got)
	}
	if got := second.forPatterns([]string{"refs/heads/main"}); got != nil {
		t.Fatalf("main did not change, yet picked %+v", got)
	}
}

func TestTemplates(t *testing.T) {
	worker, _ := signer.Generate()
	tc := &TriggerConfig{Name: "t", Worker: worker.PublicKey(), Tool: "{{.Mention.Tool}}", Reply: "thread",
		ArgumentsJSON: `{{or .Mention.Rest "{}"}}`, MaxAttempts: 1, TailLines: 1, Filter: FilterConfig{Kinds: []int{9}}}
	trig, err := compile(tc)
	if err != nil {
		t.Fatal(err)
	}
	ev := &nostr.Event{ID: "e1", PubKey: owner, Kind: 9, Content: "hey nostr:" + worker.NPub() + `: echo {"text": "x"}`,
		Tags: nostr.Tags{{"h", "ci"}, {"t", "a"}, {"t", "b"}}}
	d := newData("t", ev, nil, worker.PublicKey())
	tool, args, err := trig.render(d)
	if err != nil || tool != "echo" || args["text"] != "x" {
		t.Fatalf("render: %q %v %v", tool, args, err)
	}
	if d.Tag("h") != "ci" || strings.Join(d.Tags("t"), ",") != "a,b" {
		t.Fatalf("tags: %q %q", d.Tag("h"), d.Tags("t"))
	}

	// Typed values keep their type; strings are templates; shq quotes.
	tc.ArgumentsJSON, tc.Tool = "", "shell"
	tc.Arguments = map[string]any{"command": "git checkout {{shq .Repo.Ref}}", "timeout": int64(5),
		"env": []any{"{{.Repo.Short}}"}}
	if trig, err = compile(tc); err != nil {
		t.Fatal(err)
	}
	repo, _ := parseState(stateEvent("s", 1, "refs/heads/it's", "abcdef0123"), nil)
	_, args, err = trig.render(newData("t", ev, repo.forPatterns(nil), worker.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if args["command"] != `git checkout 'refs/heads/it'\''s'` || args["timeout"] != int64(5) || args["env"].([]any)[0] != "abcdef0" {
		t.Fatalf("arguments: %#v", args)
	}

	// .Repo on a message is an error, not an empty string in a command.
	if _, _, err = trig.render(d); err == nil {
		t.Fatal("rendering .Repo without a push succeeded")
	}
}

func TestMention(t *testing.T) {
	cases := map[string]Mention{
		"nostr:NPUB review  the diff": {Text: "review  the diff", Tool: "review", Rest: "the diff"},
		"@NPUB, status":               {Text: "status", Tool: "status"},
		"please run tests":            {Text: "please run tests", Tool: "please", Rest: "run tests"},
	}
	for in, want := range cases {
		if got := mentionOf(strings.ReplaceAll(in, "NPUB", "npub1xyz"), "npub1xyz"); got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
}
