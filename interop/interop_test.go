package interop

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// These tests run a stock ContextVM server and client (interop/js) through
// the real toolbus relay. They describe the tool-bus relay policy (kinds
// 25910/1059/21059 relayed live with OK true, never stored, plaintext only
// to its two parties, gift wraps to whoever names the recipient in #p, wraps
// from unauthenticated callers when tool_bus.anonymous_wraps is on).
//
// Against the relay from before the bus policy (commit 2c7ae98) the members
// tests fail: (c) the anonymous caller's wrap gets OK false "restricted: only
// workspace members may publish here", and (d) a third member receives the
// plaintext kind 25910 traffic; (b) fails because that relay sent no AUTH
// challenge in open mode (the calls themselves went through: it delivered
// plaintext to anyone). With the bus policy (e5eb651) all pass.

func keyHex(t *testing.T, k *signer.Local) string {
	t.Helper()
	h, err := SecretHex(k.NSec())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func openMode(c *config.Config) { c.Workspace.Mode = "open" }

// runPair runs a server with serverEnv and a client with clientEnv (RELAY_URL,
// SERVER_PK filled in) and returns the client's result; the error is the
// client's failure, if any.
func runPair(t *testing.T, r *testutil.Relay, serverEnv, clientEnv map[string]string) (*CVMServer, ClientResult, error) {
	t.Helper()
	serverEnv["RELAY_URL"] = r.URL
	srv := StartCVMServerProc(t, serverEnv)
	clientEnv["RELAY_URL"] = r.URL
	clientEnv["SERVER_PK"] = srv.PubKey
	res, err := RunCVMClient(t, clientEnv)
	return srv, res, err
}

func wantStepsOK(t *testing.T, res ClientResult, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("JS client failed: %v", err)
	}
	if !res.OK {
		t.Fatalf("JS client result not ok: %s", res.failure())
	}
}

// wantAuthed checks that both scripts' NIP-42 AUTH succeeded (AUTH=1):
// toolbus challenges every connection, in open mode too.
func wantAuthed(t *testing.T, srv *CVMServer, res ClientResult) {
	t.Helper()
	if a := srv.Ready.Authed; a == nil || !*a {
		t.Errorf("server: NIP-42 AUTH did not succeed")
	}
	if res.Live == nil || res.Live.Authed == nil || !*res.Live.Authed {
		t.Errorf("client: NIP-42 AUTH did not succeed")
	}
}

func wantTools(t *testing.T, s StepResult, names ...string) {
	t.Helper()
	for _, n := range names {
		if !slices.Contains(s.Tools, n) {
			t.Errorf("tools/list = %v, missing %q", s.Tools, n)
		}
	}
}

func wantText(t *testing.T, s StepResult, want string) {
	t.Helper()
	if !s.OK || s.Result == nil {
		t.Errorf("%s %s failed: %s", s.Op, s.Name, s.Error)
		return
	}
	if s.Result.IsError {
		t.Errorf("%s %s: isError result %+v", s.Op, s.Name, s.Result)
	}
	if got := s.Result.Text(); got != want {
		t.Errorf("%s %s = %q, want %q", s.Op, s.Name, got, want)
	}
}

var listEchoAdd = Actions(
	Action{Op: "list"},
	Action{Op: "call", Name: "echo", Args: map[string]any{"text": "hello toolbus"}},
	Action{Op: "call", Name: "add", Args: map[string]any{"a": 2, "b": 40}},
)

// (a) Open workspace, NIP-59 gift wraps both ways (ENCRYPTION=required), no
// NIP-42 on either side: what a stock ContextVM deployment does.
func TestJSOpenEncrypted(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, openMode)
	server, client := testutil.NewKey(t), testutil.NewKey(t)
	_, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, server), "ENCRYPTION": "required"},
		map[string]string{"CLIENT_SK": keyHex(t, client), "ENCRYPTION": "required", "ACTIONS": listEchoAdd})
	wantStepsOK(t, res, err)
	if res.ServerSupportsEncryption == nil || !*res.ServerSupportsEncryption {
		t.Errorf("client did not see the server's encryption support")
	}
	wantTools(t, res.Steps[0], "echo", "add", "slow")
	wantText(t, res.Steps[1], "hello toolbus")
	wantText(t, res.Steps[2], "42")
	var sc struct{ Sum float64 }
	if err := json.Unmarshal(res.Steps[2].Result.StructuredContent, &sc); err != nil || sc.Sum != 42 {
		t.Errorf("add structuredContent = %s, want {\"sum\":42}", res.Steps[2].Result.StructuredContent)
	}
}

// (b) Open workspace, plaintext kind 25910 (ENCRYPTION=disabled). toolbus
// delivers plaintext tool traffic only to an authenticated party, so both
// sides answer NIP-42 (AUTH=1, the authenticating pool).
func TestJSOpenPlaintextAuth(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, openMode)
	server, client := testutil.NewKey(t), testutil.NewKey(t)
	srv, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, server), "ENCRYPTION": "disabled", "AUTH": "1"},
		map[string]string{"CLIENT_SK": keyHex(t, client), "ENCRYPTION": "disabled", "AUTH": "1",
			"ACTIONS": Actions(Action{Op: "list"}, Action{Op: "call", Name: "echo", Args: map[string]any{"text": "plain"}})})
	wantStepsOK(t, res, err)
	wantAuthed(t, srv, res)
	if res.ServerSupportsEncryption != nil && *res.ServerSupportsEncryption {
		t.Errorf("server with ENCRYPTION=disabled announced encryption support")
	}
	wantTools(t, res.Steps[0], "echo")
	wantText(t, res.Steps[1], "plain")
}

// (c) Members workspace: the server is a member (authenticated, so its own
// wraps are accepted), the caller is a fresh non-member key that never
// authenticates — an anonymous gift-wrap caller, accepted because its wraps
// are addressed to a member and tool_bus.anonymous_wraps is on.
func TestJSMembersAnonymousWrapCaller(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, func(c *config.Config) { c.ToolBus.AnonymousWraps = true })
	stranger := testutil.NewKey(t)
	_, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, r.Member), "ENCRYPTION": "required", "AUTH": "1"},
		map[string]string{"CLIENT_SK": keyHex(t, stranger), "ENCRYPTION": "required",
			"ACTIONS": Actions(Action{Op: "call", Name: "echo", Args: map[string]any{"text": "from outside"}})})
	wantStepsOK(t, res, err)
	wantText(t, res.Steps[0], "from outside")
}

// (d) Members workspace, plaintext: the admin calls a member's server, both
// authenticated. A third member subscribed to every bus kind (no #p) sees
// none of it: plaintext goes only to its author and p-tagged recipient,
// wraps only to a filter naming their recipient.
func TestJSMembersPlaintextAuth(t *testing.T) {
	RequireJS(t)
	eve := testutil.NewKey(t)
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, eve.PublicKey())
	})

	snoop := testutil.Connect(t, r.URL, eve)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := snoop.Subscribe(ctx, nostr.Filters{{Kinds: []int{25910, 1059, 21059}}})
	if err != nil {
		t.Fatalf("eavesdropper subscribe: %v", err)
	}
	seen := make(chan *nostr.Event, 16)
	go func() {
		for ev := range sub.Events {
			seen <- ev
		}
	}()

	srv, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, r.Member), "ENCRYPTION": "disabled", "AUTH": "1"},
		map[string]string{"CLIENT_SK": keyHex(t, r.Admin), "ENCRYPTION": "disabled", "AUTH": "1",
			"ACTIONS": Actions(Action{Op: "call", Name: "echo", Args: map[string]any{"text": "members only"}})})
	wantStepsOK(t, res, err)
	wantAuthed(t, srv, res)
	wantText(t, res.Steps[0], "members only")

	select {
	case ev := <-seen:
		t.Errorf("a third member saw bus traffic: kind %d from %s", ev.Kind, ev.PubKey)
	case <-time.After(300 * time.Millisecond):
	}
}

// (e) Progress and cancellation through the relay. Progress: the server's
// notifications/progress (correlated by the request's progressToken) reach
// the client. Cancel: the client aborts a call; the MCP SDK sends
// notifications/cancelled and rejects the call. @contextvm/sdk 0.11.14's
// server transport does not route notifications/cancelled to the running
// request (the handler's signal never fires), so only the client side is
// asserted here; the server's "slow cancelled" is logged if it ever happens.
func TestJSProgressAndCancel(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, openMode)
	server, client := testutil.NewKey(t), testutil.NewKey(t)
	srv, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, server), "ENCRYPTION": "required"},
		map[string]string{"CLIENT_SK": keyHex(t, client), "ENCRYPTION": "required",
			"ACTIONS": Actions(
				Action{Op: "call", Name: "slow", Args: map[string]any{"ms": 900, "steps": 3}, Progress: true},
				Action{Op: "cancel", Name: "slow", Args: map[string]any{"ms": 6000, "steps": 6}, AfterMs: 800},
			)})
	if err != nil {
		t.Errorf("JS client: %v", err)
	}
	if len(res.Steps) != 2 {
		t.Fatalf("got %d step results, want 2 (%s)", len(res.Steps), res.failure())
	}
	p := res.Steps[0]
	if !p.OK {
		t.Errorf("slow with progress failed: %s", p.Error)
	}
	if len(p.Progress) < 1 {
		t.Errorf("slow with progress: no progress notification reached the client")
	} else {
		t.Logf("progress received: %+v", p.Progress)
	}
	c := res.Steps[1]
	if !c.Cancelled || !c.OK {
		t.Errorf("cancel: call was not cancelled on the client: ok=%v cancelled=%v error=%q", c.OK, c.Cancelled, c.Error)
	} else {
		t.Logf("client side of cancel: %s", c.Error)
	}
	if srv.WaitLog("slow cancelled", 1500*time.Millisecond) {
		t.Logf("server handler was cancelled too")
	} else {
		t.Logf("server handler was not cancelled (expected with @contextvm/sdk 0.11.14: its server transport drops notifications/cancelled)")
	}
}

// Stateless client (isStateless): no initialize round trip; the server
// answers tools/list and tools/call straight away.
func TestJSStatelessClient(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, openMode)
	server, client := testutil.NewKey(t), testutil.NewKey(t)
	_, res, err := runPair(t, r,
		map[string]string{"SERVER_SK": keyHex(t, server), "ENCRYPTION": "required"},
		map[string]string{"CLIENT_SK": keyHex(t, client), "ENCRYPTION": "required", "STATELESS": "1",
			"ACTIONS": Actions(Action{Op: "list"}, Action{Op: "call", Name: "echo", Args: map[string]any{"text": "stateless"}})})
	wantStepsOK(t, res, err)
	wantTools(t, res.Steps[0], "echo")
	wantText(t, res.Steps[1], "stateless")
}

// Announcements (CEP-6): an announced server's kind 11316 (initialize
// result) and 11317 (tools/list) are stored and queryable on the relay.
func TestJSAnnounce(t *testing.T) {
	RequireJS(t)
	r := testutil.StartRelay(t, openMode)
	server := testutil.NewKey(t)
	srv := StartCVMServerProc(t, map[string]string{
		"SERVER_SK": keyHex(t, server), "RELAY_URL": r.URL, "ENCRYPTION": "optional",
		"ANNOUNCE": "1", "NAME": "announced-echo"})
	c := testutil.Connect(t, r.URL, nil)
	var got map[int]*nostr.Event
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		evs, err := c.QuerySync(ctx, nostr.Filter{Authors: []string{srv.PubKey}, Kinds: []int{11316, 11317}})
		cancel()
		if err != nil {
			t.Fatalf("query announcements: %v", err)
		}
		got = map[int]*nostr.Event{}
		for _, ev := range evs {
			got[ev.Kind] = ev
		}
		if len(got) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ev := got[11316]; ev == nil {
		t.Errorf("no kind 11316 server announcement stored")
	} else if !strings.Contains(ev.Content, "protocolVersion") {
		t.Errorf("11316 content is not an initialize result: %s", ev.Content)
	}
	if ev := got[11317]; ev == nil {
		t.Errorf("no kind 11317 tools list stored")
	} else if !strings.Contains(ev.Content, `"echo"`) {
		t.Errorf("11317 content does not list echo: %s", ev.Content)
	}
}
