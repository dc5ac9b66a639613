package mcpadapter

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
)

func textTool(name, text string) (*mcp.Tool, mcp.ToolHandler) {
	return &mcp.Tool{Name: name, Description: name, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}
}

// When the upstream adds and removes tools (sending
// notifications/tools/list_changed), the bridge mirrors the change and
// re-announces: the relay holds a new 11316 and 11317 listing the new tool
// and not the removed one, and a bus caller's tools/list and tools/call
// agree.
func TestBridgeReannouncesUpstreamListChanges(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	up := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	up.AddTool(textTool("old", "old tool"))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(srv.Close)
	b, err := NewBridge(BridgeOptions{Name: "up", URL: srv.URL, Logger: testutil.Logger(t)})
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
	bridgeKey := r.Member.PublicKey()
	startWorker(t, r, r.Member, "up", b.Server())
	conn, err := bus.Dial(ctx, r.URL, &bus.ConnOptions{Signer: r.Admin, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	latest := func(kind int) *nostr.Event {
		evs, err := conn.Query(ctx, nostr.Filters{{Kinds: []int{kind}, Authors: []string{bridgeKey}, Limit: 1}})
		if err != nil || len(evs) == 0 {
			return nil
		}
		return evs[0]
	}
	announcedTools := func() []string {
		ev := latest(bus.KindToolsList)
		if ev == nil {
			return nil
		}
		var res mcp.ListToolsResult
		json.Unmarshal([]byte(ev.Content), &res)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	waitUntil(t, "the first announcement", func() bool { return slices.Equal(announcedTools(), []string{"old"}) })
	firstServer := latest(bus.KindServerAnnouncement)
	if firstServer == nil {
		t.Fatal("no 11316 announcement")
	}

	up.AddTool(textTool("new", "new tool"))
	up.RemoveTools("old")
	waitUntil(t, "a 11317 announcing the new list", func() bool { return slices.Equal(announcedTools(), []string{"new"}) })
	if s := latest(bus.KindServerAnnouncement); s == nil || s.ID == firstServer.ID || s.CreatedAt <= firstServer.CreatedAt {
		t.Errorf("no new 11316 announcement: first %v, latest %v", firstServer, s)
	}

	caller := newBusCaller(t, r, r.Admin).client
	list, err := caller.ListTools(ctx, bridgeKey)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"new"}) {
		t.Fatalf("caller's tools/list: %v, want [new]", names)
	}
	res, err := caller.CallTool(ctx, bridgeKey, "new", nil)
	if err != nil || res.IsError || textOf(res) != "new tool" {
		t.Fatalf("calling the new tool: %v %+v", err, res)
	}
	res, err = caller.CallTool(ctx, bridgeKey, "old", nil)
	if err == nil && !res.IsError {
		t.Fatalf("the removed tool still answers: %+v", res)
	}
}
