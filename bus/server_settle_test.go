package bus

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// A call that overtakes the relay's stored membership list at start-up is
// judged against the list as of the subscription's first EOSE, not against
// none: with an allowlist, "none" would let a removed member through.
func TestCallBeforeMembershipListWaitsForIt(t *testing.T) {
	caller := strings.Repeat("a", 64)
	srv, err := NewServer(newWireKey(t), mcp.NewServer(&mcp.Implementation{Name: "t"}, nil),
		&ServerOptions{RelayPubKey: strings.Repeat("r", 64), Allow: []string{caller}})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *memberSet, 1)
	go func() { got <- srv.settledSnapshot(nil) }()
	select {
	case <-got:
		t.Fatal("judged before the membership list could arrive")
	case <-time.After(50 * time.Millisecond):
	}
	list := parseMembers(&nostr.Event{CreatedAt: 1, Tags: nostr.Tags{{"member", strings.Repeat("b", 64)}}})
	srv.members.Store(list)
	srv.settleOnce.Do(func() { close(srv.settled) })
	snap := <-got
	if snap != list || srv.allowed(caller, snap) {
		t.Fatalf("snapshot %v, allowed %v: want the list, which refuses the allowlisted non-member", snap, srv.allowed(caller, snap))
	}
	// Once settled, a relay without a list leaves the allowlist alone.
	srv.members.Store(nil)
	if snap := srv.settledSnapshot(nil); snap != nil || !srv.allowed(caller, snap) {
		t.Fatal("after EOSE with no list, the allowlist alone should decide")
	}
}

// Open servers never wait for a list.
func TestOpenServerDoesNotWaitForMembers(t *testing.T) {
	srv, err := NewServer(newWireKey(t), mcp.NewServer(&mcp.Implementation{Name: "t"}, nil),
		&ServerOptions{AllowAnyone: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.settledSnapshot(nil); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an open server waited for a membership list")
	}
}
