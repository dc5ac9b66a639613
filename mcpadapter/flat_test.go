package mcpadapter

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

func TestFlatNames(t *testing.T) {
	w := workerTools{pubkey: "aaaaaa0000000000", name: "laptop", tools: []string{"read.file", "echo", "read_file", "!!"}}
	got := flatNames(w)
	want := map[string]binding{
		"echo":        {w.pubkey, "echo"},
		"read_file":   {w.pubkey, "read.file"}, // sorted first: "read.file" < "read_file"
		"read_file_2": {w.pubkey, "read_file"},
		"tool":        {w.pubkey, "!!"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for n, b := range want {
		if got[n] != b {
			t.Fatalf("%s: got %v, want %v (all: %v)", n, got[n], b, got)
		}
	}
}

func TestFlatNeedsExactlyOneWorker(t *testing.T) {
	for _, workers := range [][]string{nil, {"a", "b"}} {
		_, err := New(Options{Conn: &bus.Conn{}, Client: &bus.Client{}, RelayPubKey: "r", Workers: workers, Flat: true})
		if err == nil {
			t.Fatalf("Flat with workers %v: no error", workers)
		}
	}
}

// flatWorker has one of everything flat mode forwards.
func flatWorker() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-done"}}}, nil
		}})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "read " + req.Params.URI}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://hello", Name: "hello"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://item/{id}", Name: "item"}, read)
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "hi " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}

// startFlatAdapter runs a flat adapter for worker, as key, and connects an
// in-memory agent to it.
func startFlatAdapter(t *testing.T, r *testutil.Relay, key *signer.Local, worker string) *mcp.ClientSession {
	t.Helper()
	ctx := ctxT(t)
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: key, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client, err := bus.NewClient(ctx, conn, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Conn: conn, Client: client, Workers: []string{worker}, Flat: true, Logger: testutil.Logger(t)})
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

func TestAdapterFlat(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	startWorker(t, r, r.Member, "laptop", flatWorker())
	cs := startFlatAdapter(t, r, r.Admin, r.Member.PublicKey())
	ctx := ctxT(t)

	if names := toolNames(t, cs); len(names) != 1 || !names["echo"] {
		t.Fatalf("flat tools: %v", names)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "flat"}}); err != nil || textOf(res) != "flat" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	for _, uri := range []string{"test://hello", "test://item/7"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "read "+uri {
			t.Fatalf("read %s: %v %+v", uri, err, res)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nothing"}); err == nil {
		t.Fatal("read of an unknown URI succeeded")
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "bob"}})
	if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "hi bob" {
		t.Fatalf("prompt: %v %+v", err, p)
	}
	c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "who", Value: "x"}})
	if err != nil || len(c.Completion.Values) != 1 || c.Completion.Values[0] != "x-done" {
		t.Fatalf("complete: %v %+v", err, c)
	}
}
