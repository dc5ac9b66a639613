package mcpadapter

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/internal/testutil"
)

// Progress of a running call reaches an agent over stateless HTTP: the
// response must be an SSE stream, since a stateless server has no other
// stream to send it on (it was dropped with JSONResponse).
func TestAdapterHTTPProgress(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	a, _ := startAdapter(t, r, r.Admin, "", nil)
	url := serveHTTP(t, a, nil)
	ctx := ctxT(t)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		var seen atomic.Int64
		client := mcp.NewClient(&mcp.Implementation{Name: "http-agent"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { seen.Add(1) }})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		params := &mcp.CallToolParams{Name: "laptop__slow", Arguments: map[string]any{"steps": 3, "ms": 10}}
		params.SetProgressToken("p-" + version)
		if res, err := cs.CallTool(ctx, params); err != nil || textOf(res) != "done" {
			t.Fatalf("%s: slow: %v %+v", version, err, res)
		}
		// The client handles notifications apart from the response.
		waitUntil(t, version+": 3 progress notifications at the agent", func() bool { return seen.Load() == 3 })
		cs.Close()
	}
}
