package mcpadapter

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolbus/internal/testutil"
	"toolbus/nip98"
	"toolbus/signer"
)

func serveHTTP(t *testing.T, a *Adapter, nip98Key *signer.Local) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := HTTPOptions{Addr: ln.Addr().String()}
	if nip98Key != nil {
		o.RequireNIP98, o.Allowed = true, map[string]bool{nip98Key.PublicKey(): true}
	}
	srv := &http.Server{Handler: a.HTTPHandler(o)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// nip98Transport signs a fresh single-use token for every request.
type nip98Transport struct {
	key *signer.Local
	url string
}

func (n nip98Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	h, err := nip98.BuildHeader(r.Context(), n.key, n.url, r.Method, body)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h)
	return http.DefaultTransport.RoundTrip(r)
}

func TestAdapterHTTP(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	a, _ := startAdapter(t, r, r.Admin, "", nil)
	url := serveHTTP(t, a, nil)
	ctx := ctxT(t)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-agent"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "laptop__echo", Arguments: map[string]any{"text": "over http"}})
	if err != nil || textOf(res) != "over http" {
		t.Fatalf("call over HTTP: %v %+v", err, res)
	}

	// DNS rebinding: the browser sends the attacker's host name.
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Host = "evil.example:80"
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Host: want 403, got %v %v", resp.StatusCode, err)
	}
	// A cross-site page posting to the adapter.
	req, _ = http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site Origin: want 403, got %v %v", resp.StatusCode, err)
	}
	// A foreign Origin alone (no Sec-Fetch-Site: older browsers, or a
	// request that did not come from a browser's fetch).
	req, _ = http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Origin without Sec-Fetch-Site: want 403, got %v %v", resp.StatusCode, err)
	}
}

func TestAdapterHTTPWithNIP98(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	var cancelled atomic.Int64
	startWorker(t, r, r.Member, "laptop", workerServer(&cancelled))
	a, _ := startAdapter(t, r, r.Admin, "", nil)
	url := serveHTTP(t, a, r.Admin)
	ctx := ctxT(t)

	if _, err := mcp.NewClient(&mcp.Implementation{Name: "anon"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil); err == nil {
		t.Fatal("connected without a NIP-98 token")
	}
	stranger := &http.Client{Transport: nip98Transport{key: testutil.NewKey(t), url: url}}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "stranger"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: stranger, MaxRetries: -1}, nil); err == nil {
		t.Fatal("connected with a stranger's token")
	}
	owner := &http.Client{Transport: nip98Transport{key: r.Admin, url: url}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "owner"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: owner}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}
