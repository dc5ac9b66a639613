package bus

import (
	"testing"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// anonClient calls as key over an unauthenticated connection, as ContextVM
// clients connect: its gift wraps reach a member worker even after the
// relay has revoked key, so only the worker's own check can refuse them.
func anonClient(t *testing.T, url string, key *signer.Local) *Client {
	t.Helper()
	c, err := NewClient(testCtx(t), dialConn(t, url, nil, nil), key, &ClientOptions{Wrap: WrapGift})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAllowlistNarrowsMembership: a worker with an explicit allowlist still
// follows the relay's membership list, so removing a member reaches it
// even though the allowlist names them.
func TestAllowlistNarrowsMembership(t *testing.T) {
	caller := newKey(t)
	f := newBusFixture(t, &ServerOptions{Allow: []string{caller.PublicKey()}})
	if _, err := manage(t, f, "allowpubkey", caller.PublicKey(), "contractor"); err != nil {
		t.Fatal(err)
	}
	c := anonClient(t, f.r.URL, caller)
	if res, err := c.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"}); err != nil || res.IsError {
		t.Fatalf("allowlisted member: %v %+v", err, res)
	}
	if _, err := manage(t, f, "unallowpubkey", caller.PublicKey()); err != nil {
		t.Fatal(err)
	}
	before := f.tools.ran.Load()
	res, err := c.CallTool(testCtx(t), f.worker.PublicKey(), "echo", map[string]any{"text": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeUnauthorized {
		t.Fatalf("removed member on the allowlist: want unauthorized, got %+v", res)
	}
	if f.tools.ran.Load() != before {
		t.Fatal("handler ran for a removed member")
	}
}

// TestAllowlistAloneWithoutMembershipList: when the relay never shows a
// membership list, the allowlist alone decides (a caller who is no member
// of anything is served, a caller off the list is not).
func TestAllowlistAloneWithoutMembershipList(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	listed, unlisted := newKey(t), newKey(t)
	noList := newKey(t).PublicKey() // a "relay key" that never signs a list
	worker, _ := startWorker(t, r.URL, r.Member, newTestTools(),
		&ServerOptions{Allow: []string{listed.PublicKey()}, RelayPubKey: noList})
	res, err := anonClient(t, r.URL, listed).CallTool(testCtx(t), worker.PublicKey(), "echo", map[string]any{"text": "x"})
	if err != nil || res.IsError {
		t.Fatalf("allowlisted caller without a membership list: %v %+v", err, res)
	}
	res, err = anonClient(t, r.URL, unlisted).CallTool(testCtx(t), worker.PublicKey(), "echo", map[string]any{"text": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if e := ResultError(res); e == nil || e.Code != CodeUnauthorized {
		t.Fatalf("caller off the allowlist: want unauthorized, got %+v", res)
	}
}
