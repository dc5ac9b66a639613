package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// upstreamMark is the identity an upstream puts in every _meta it can; no
// bus caller of the bridge may see it.
const upstreamMark = "upstream-identity-7f3a"

type tickIn struct {
	Who   string `json:"who"`
	Steps int    `json:"steps"`
}

// metaUpstream is an MCP server (served over streamable HTTP) whose "tick"
// tool reports progress labelled with the caller's "who", and sets _meta
// on its progress, its result and every content item. Calls wait for each
// other (parties of them in flight) before reporting, so their progress
// interleaves.
func metaUpstream(t *testing.T, parties int) string {
	meta := mcp.Meta{"upstream.example/identity": upstreamMark}
	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "tick", Description: "tick"}, func(ctx context.Context, req *mcp.CallToolRequest, in tickIn) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		if arrived++; arrived == parties {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		for i := 1; i <= in.Steps; i++ {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{Meta: meta, ProgressToken: tok,
					Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("%s-%d", in.Who, i)})
			}
			time.Sleep(5 * time.Millisecond)
		}
		// go-sdk's client handles notifications apart from responses: a
		// result sent right after the last progress can overtake it at
		// the bridge, which then has no call to forward it to.
		time.Sleep(100 * time.Millisecond)
		return &mcp.CallToolResult{Meta: meta, Content: []mcp.Content{
			&mcp.TextContent{Text: "done " + in.Who, Meta: meta},
			&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png", Meta: meta},
			&mcp.ResourceLink{URI: "file:///x", Name: "x", Meta: meta},
			&mcp.EmbeddedResource{Meta: meta, Resource: &mcp.ResourceContents{URI: "file:///y", Text: "y", Meta: meta}},
		}}, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///r", Name: "r", Meta: meta}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Meta: meta, Contents: []*mcp.ResourceContents{{URI: "file:///r", Text: "resource r", Meta: meta}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p", Meta: meta}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Meta: meta, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt p", Meta: meta}}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// busCaller is a caller of the bus that picks its own progress tokens (as
// ContextVM / TypeScript clients do) and records every progress
// notification addressed to it, raw.
type busCaller struct {
	client *bus.Client
	mu     sync.Mutex
	seen   []json.RawMessage
}

func newBusCaller(t *testing.T, r *testutil.Relay, key *signer.Local) *busCaller {
	t.Helper()
	ctx := ctxT(t)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &busCaller{}
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{bus.KindMessage, bus.KindGiftWrap, bus.KindEphemeralGiftWrap},
			Tags: nostr.TagMap{"p": {key.PublicKey()}}}}
	}
	sub, err := conn.Subscribe(ctx, filters, func(ev *nostr.Event) {
		if bus.IsWrapKind(ev.Kind) {
			inner, err := bus.Unwrap(context.Background(), key, ev)
			if err != nil {
				return
			}
			ev = inner
		}
		if msg, err := bus.Decode(ev); err == nil {
			if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" {
				c.mu.Lock()
				c.seen = append(c.seen, req.Params)
				c.mu.Unlock()
			}
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.EOSE():
	case <-ctx.Done():
		t.Fatal("no EOSE")
	}
	if c.client, err = bus.NewClient(ctx, conn, key, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *busCaller) progress() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.seen...)
}

// Two bus callers of a bridge use the same progress token at the same
// time: each gets its own progress only, under its token, and nothing of
// the upstream's _meta (on progress, result or content) reaches either.
// Tokens are numbers (as ContextVM / TypeScript clients send them) or
// strings.
func TestBridgeProgressPerCallerAndNoUpstreamMeta(t *testing.T) {
	for _, token := range []any{1, "p1"} {
		t.Run(fmt.Sprintf("%T", token), func(t *testing.T) { testBridgeProgress(t, token) })
	}
}

func testBridgeProgress(t *testing.T, token any) {
	wantToken, _ := json.Marshal(token)
	third := testutil.NewKey(t)
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, third.PublicKey())
	})
	b, err := NewBridge(BridgeOptions{Name: "up", URL: metaUpstream(t, 2), Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	go b.Run(ctx)
	select {
	case <-b.Ready():
	case <-ctx.Done():
		t.Fatal("bridge not ready")
	}
	startWorker(t, r, r.Member, "up", b.Server())

	const steps = 4
	callers := map[string]*busCaller{"alice": newBusCaller(t, r, r.Admin), "bob": newBusCaller(t, r, third)}
	results := map[string]json.RawMessage{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for who, c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, err := c.client.Call(ctx, r.Member.PublicKey(), "tools/call", map[string]any{
				"name": "tick", "arguments": map[string]any{"who": who, "steps": steps},
				"_meta": map[string]any{"progressToken": token}})
			if err != nil {
				t.Errorf("%s: call: %v", who, err)
			}
			mu.Lock()
			results[who] = raw
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Resources and prompts come without the upstream's _meta too.
	for method, params := range map[string]map[string]any{
		"tools/list": {}, "resources/list": {}, "prompts/list": {},
		"resources/read": {"uri": "file:///r"}, "prompts/get": {"name": "p"},
	} {
		raw, err := callers["alice"].client.Call(ctx, r.Member.PublicKey(), method, params)
		if err != nil || strings.Contains(string(raw), upstreamMark) || strings.Contains(string(raw), `"_meta"`) {
			t.Errorf("%s: %v %s", method, err, raw)
		}
	}
	waitUntil(t, "every progress notification", func() bool {
		return len(callers["alice"].progress())+len(callers["bob"].progress()) >= 2*steps
	})
	time.Sleep(100 * time.Millisecond) // anything more would be here by now
	for who, c := range callers {
		got := c.progress()
		if len(got) != steps {
			t.Errorf("%s: %d progress notifications, want %d: %s", who, len(got), steps, got)
		}
		for _, raw := range got {
			var p struct {
				Token   json.RawMessage `json:"progressToken"`
				Message string          `json:"message"`
				Meta    json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(raw, &p)
			if !strings.HasPrefix(p.Message, who+"-") || string(p.Token) != string(wantToken) {
				t.Errorf("%s got someone else's progress (or under another token): %s", who, raw)
			}
			if p.Meta != nil || strings.Contains(string(raw), upstreamMark) {
				t.Errorf("%s: upstream _meta passed on in progress: %s", who, raw)
			}
		}
		res := results[who]
		if !strings.Contains(string(res), "done "+who) {
			t.Errorf("%s: result %s", who, res)
		}
		if strings.Contains(string(res), upstreamMark) || strings.Contains(string(res), `"_meta"`) {
			t.Errorf("%s: upstream _meta passed on in the result: %s", who, res)
		}
	}
}
