package mcpadapter

import (
	"context"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/mcpadapter/sanitize"
	"toolbus/signer"
)

// wsFixture is a relay with two channels made by owner (r.Member): the
// private, closed "secret", which user was put in, and the public, open
// "general". outsider is a workspace member in neither.
type wsFixture struct {
	r              *testutil.Relay
	owner          *signer.Local
	user, outsider *signer.Local
	conn           *bus.Conn // owner's
	root, reply    nostr.Event
	mention        nostr.Event // mentions user, in secret
}

func newWSFixture(t *testing.T) *wsFixture {
	t.Helper()
	f := &wsFixture{user: testutil.NewKey(t), outsider: testutil.NewKey(t)}
	f.r = testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, f.user.PublicKey(), f.outsider.PublicKey())
	})
	f.owner = f.r.Member
	f.conn = dialAs(t, f.r, f.owner)
	f.publish(t, 0, `{"name":"owner","display_name":"Owner <b>Boss</b>"}`)
	f.publish(t, 9007, "", nostr.Tag{"h", "secret"}, nostr.Tag{"private"}, nostr.Tag{"closed"},
		nostr.Tag{"name", "Secret plans"}, nostr.Tag{"about", "Where we plan"})
	f.publish(t, 9000, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", f.user.PublicKey(), "member"})
	f.publish(t, 9007, "", nostr.Tag{"h", "general"}, nostr.Tag{"name", "General"})
	f.root = f.publish(t, 9, "the plan is ready", nostr.Tag{"h", "secret"})
	f.reply = f.publish(t, 9, "agreed, ship the plan", nostr.Tag{"h", "secret"}, nostr.Tag{"e", f.root.ID, "", "root"})
	f.mention = f.publish(t, 9, "please review the plan", nostr.Tag{"h", "secret"}, nostr.Tag{"p", f.user.PublicKey()})
	f.publish(t, 9, "the outsider must not see this plan", nostr.Tag{"h", "secret"}, nostr.Tag{"p", f.outsider.PublicKey()})
	f.publish(t, 9, "hello everyone", nostr.Tag{"h", "general"})
	return f
}

// publish signs an event as owner and waits for the relay's OK.
func (f *wsFixture) publish(t *testing.T, kind int, content string, tags ...nostr.Tag) nostr.Event {
	t.Helper()
	return f.publishAt(t, nostr.Now(), kind, content, tags...)
}

// publishAt is publish with a given created_at.
func (f *wsFixture) publishAt(t *testing.T, at nostr.Timestamp, kind int, content string, tags ...nostr.Tag) nostr.Event {
	t.Helper()
	ev := nostr.Event{Kind: kind, CreatedAt: at, Content: content, Tags: tags}
	if err := f.owner.SignEvent(ctxT(t), &ev); err != nil {
		t.Fatal(err)
	}
	if err := f.conn.Publish(ctxT(t), &ev); err != nil {
		t.Fatalf("publish kind %d: %v", kind, err)
	}
	return ev
}

func dialAs(t *testing.T, r *testutil.Relay, key *signer.Local) *bus.Conn {
	t.Helper()
	conn, err := bus.Dial(ctxT(t), r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// startWorkspace runs an adapter as key, with the workspace tools and the
// given sanitiser (nil: the default), and connects a go-sdk client to it.
func startWorkspace(t *testing.T, r *testutil.Relay, key *signer.Local, san *sanitize.Sanitizer) *mcp.ClientSession {
	t.Helper()
	ctx := ctxT(t)
	conn := dialAs(t, r, key)
	client, err := bus.NewClient(ctx, conn, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Conn: conn, Client: client, RelayPubKey: r.Server.PublicKey(),
		Logger: testutil.Logger(t), Key: key, Sanitizer: san})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go a.Server().Run(context.Background(), st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool and returns its result, failing on protocol errors.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// callOK runs a tool that must succeed and returns its text.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s failed: %s", name, textOf(res))
	}
	return textOf(res)
}

var postedRE = regexp.MustCompile(`posted message ([0-9a-f]{64})`)

// postOK posts and returns the new message, as the relay stored it.
func (f *wsFixture) postOK(t *testing.T, cs *mcp.ClientSession, args map[string]any) *nostr.Event {
	t.Helper()
	m := postedRE.FindStringSubmatch(callOK(t, cs, "post", args))
	if m == nil {
		t.Fatal("post did not return an id")
	}
	evs, err := f.conn.Query(ctxT(t), nostr.Filters{{IDs: []string{m[1]}}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("posted message not stored: %v %d", err, len(evs))
	}
	return evs[0]
}
