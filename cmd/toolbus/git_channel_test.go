package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// gitCheckout is a working copy set up with `toolbus git setup` to push to
// remote as key.
type gitCheckout struct {
	dir string
	env []string
}

func newGitCheckout(t *testing.T, key *signer.Local, remote string) gitCheckout {
	t.Helper()
	home := t.TempDir()
	c := gitCheckout{dir: filepath.Join(home, "r"), env: gitEnv(home)}
	keyFile := filepath.Join(home, "k")
	if err := signer.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	must(t, c.env, home, "git", "init", "-q", "-b", "main", c.dir)
	must(t, c.env, c.dir, testutil.Binary(t, "toolbus"), "git", "setup", "--key-file", keyFile, "--remote", remote)
	return c
}

// commitPush commits one file and pushes main; it returns the new commit.
func (c gitCheckout) commitPush(t *testing.T, file, content string) string {
	t.Helper()
	writeFile(t, filepath.Join(c.dir, file), content)
	must(t, c.env, c.dir, "git", "add", ".")
	must(t, c.env, c.dir, "git", "-c", "user.email=o@example", "commit", "-q", "-m", file)
	must(t, c.env, c.dir, "git", "push", "-q", "origin", "main")
	return strings.TrimSpace(must(t, c.env, c.dir, "git", "rev-parse", "HEAD"))
}

// collector gathers the events of a subscription.
type collector struct {
	mu  sync.Mutex
	evs []*nostr.Event
}

func (c *collector) add(ev *nostr.Event) { c.mu.Lock(); c.evs = append(c.evs, ev); c.mu.Unlock() }

func (c *collector) all() []*nostr.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*nostr.Event(nil), c.evs...)
}

// wait returns the events once there are at least n, or fails after 10 s.
func (c *collector) wait(t *testing.T, n int) []*nostr.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if evs := c.all(); len(evs) >= n {
			return evs
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("want %d events, have %d", n, len(c.all()))
	return nil
}

// subscribe opens a subscription as key and waits for its EOSE.
func subscribe(t *testing.T, ctx context.Context, relayURL string, key *signer.Local, f nostr.Filter) *collector {
	t.Helper()
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &collector{}
	sub, err := conn.Subscribe(ctx, func() nostr.Filters { return nostr.Filters{f} }, c.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.EOSE():
	case <-time.After(10 * time.Second):
		t.Fatal("no EOSE")
	}
	return c
}

// An accepted push to a repository bound to a channel posts a relay-signed
// kind-9 message there, which a member of the (private) channel receives
// live: pusher, repository, refs old → new, and references to the state
// event. A repository without a binding, and one bound to a channel its
// owner is not in, post nothing; a workspace member outside the private
// channel sees none of it.
func TestPushPostsToBoundChannel(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	alice, carol, bob := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t)
	relayURL := startRelayWithConfig(t, fmt.Sprintf("[workspace]\nmembers = [%q, %q, %q]\n",
		alice.PublicKey(), carol.PublicKey(), bob.PublicKey()))
	httpURL := strings.Replace(relayURL, "ws://", "http://", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Alice's private channel "ci" with Carol in it; "proj" is bound to it,
	// "solo" is not. Bob binds his "spam" to it while he is in the channel
	// (the relay refuses an h tag from a non-member), then is removed.
	conn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: alice, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bobConn, err := bus.Dial(ctx, relayURL, &bus.ConnOptions{Signer: bob, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer bobConn.Close()
	for _, p := range []struct {
		c  *bus.Conn
		ev nostr.Event
	}{
		{conn, testutil.Signed(t, alice, 9007, "", nostr.Tag{"h", "ci"}, nostr.Tag{"name", "CI"}, nostr.Tag{"private"})},
		{conn, testutil.Signed(t, alice, 9000, "", nostr.Tag{"h", "ci"}, nostr.Tag{"p", carol.PublicKey()})},
		{conn, testutil.Signed(t, alice, 30617, "", nostr.Tag{"d", "proj"}, nostr.Tag{"h", "ci"})},
		{conn, testutil.Signed(t, alice, 30617, "", nostr.Tag{"d", "solo"})},
		{conn, testutil.Signed(t, alice, 9000, "", nostr.Tag{"h", "ci"}, nostr.Tag{"p", bob.PublicKey()})},
		{bobConn, testutil.Signed(t, bob, 30617, "", nostr.Tag{"d", "spam"}, nostr.Tag{"h", "ci"})},
		{conn, testutil.Signed(t, alice, 9001, "", nostr.Tag{"h", "ci"}, nostr.Tag{"p", bob.PublicKey()})},
	} {
		if err := p.c.Publish(ctx, &p.ev); err != nil {
			t.Fatal(err)
		}
	}
	inChannel := subscribe(t, ctx, relayURL, carol, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"ci"}}})
	outsider := subscribe(t, ctx, relayURL, bob, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"ci"}}})

	remote := httpURL + "/git/" + alice.NPub() + "/proj.git"
	proj := newGitCheckout(t, alice, remote)
	first := proj.commitPush(t, "a", "one\n")
	msg := inChannel.wait(t, 1)[0]
	states, err := conn.Query(ctx, nostr.Filters{{Kinds: []int{30618}, Tags: nostr.TagMap{"d": {alice.PublicKey() + "/proj"}}}})
	if err != nil || len(states) != 1 {
		t.Fatalf("state events: %v, %v", states, err)
	}
	state := states[0]
	checkPushMessage(t, msg, state, alice, remote, "refs/heads/main created "+first)

	// An update shows old -> new and references the new state.
	second := proj.commitPush(t, "b", "two\n")
	msgs := inChannel.wait(t, 2)
	states, _ = conn.Query(ctx, nostr.Filters{{Kinds: []int{30618}, Tags: nostr.TagMap{"d": {alice.PublicKey() + "/proj"}}}})
	if len(states) != 1 || states[0].ID == state.ID {
		t.Fatalf("state not replaced: %v", states)
	}
	checkPushMessage(t, msgs[1], states[0], alice, remote, "refs/heads/main "+first+" -> "+second)

	// No binding, or a binding by an owner no longer in the channel: no
	// message.
	newGitCheckout(t, alice, httpURL+"/git/"+alice.NPub()+"/solo.git").commitPush(t, "s", "solo\n")
	newGitCheckout(t, bob, httpURL+"/git/"+bob.NPub()+"/spam.git").commitPush(t, "s", "spam\n")
	// A last bound push: its message arrives after anything the two above
	// could have posted (each push returns once its message is stored).
	third := proj.commitPush(t, "c", "three\n")
	msgs = inChannel.wait(t, 3)
	time.Sleep(200 * time.Millisecond)
	if msgs = inChannel.all(); len(msgs) != 3 || !strings.Contains(msgs[2].Content, third) {
		for _, m := range msgs {
			t.Logf("message: %s", m.Content)
		}
		t.Fatalf("want exactly 3 push messages, the last for %s; have %d", third, len(msgs))
	}
	stored, _ := conn.Query(ctx, nostr.Filters{{Kinds: []int{9}, Authors: []string{state.PubKey}}})
	if len(stored) != 3 {
		t.Fatalf("%d relay messages stored, want 3", len(stored))
	}
	if evs := outsider.all(); len(evs) != 0 {
		t.Fatalf("a non-member of the private channel received %d messages", len(evs))
	}
}

// checkPushMessage checks one push message against the state it announces.
func checkPushMessage(t *testing.T, msg, state *nostr.Event, pusher *signer.Local, remote, refLine string) {
	t.Helper()
	owner := pusher.PublicKey()
	if msg.Kind != 9 || msg.PubKey != state.PubKey {
		t.Fatalf("kind %d by %s, want 9 by the relay (%s)", msg.Kind, msg.PubKey, state.PubKey)
	}
	if ok, _ := msg.CheckSignature(); !ok {
		t.Fatal("bad signature on the push message")
	}
	lines := strings.Split(msg.Content, "\n")
	wantHead := pusher.NPub() + " pushed to " + pusher.NPub() + "/proj: " + remote
	if len(lines) != 2 || lines[0] != wantHead || lines[1] != refLine {
		t.Fatalf("content:\n%s\nwant:\n%s\n%s", msg.Content, wantHead, refLine)
	}
	for _, want := range []nostr.Tag{{"h", "ci"}, {"a", "30617:" + owner + ":proj"},
		{"a", "30618:" + state.PubKey + ":" + owner + "/proj"}, {"e", state.ID, "", "mention"}} {
		if msg.Tags.FindWithValue(want[0], want[1]) == nil {
			t.Errorf("message lacks %v: %v", want, msg.Tags)
		}
	}
	if p := msg.Tags.Find("p"); p != nil {
		t.Errorf("unexpected p tag %v", p)
	}
}
