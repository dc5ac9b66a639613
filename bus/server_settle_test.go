package bus

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// Calls that overtake the relay's stored membership list at start-up are
// parked without taking a pool slot (more of them than the pool holds must
// not block the delivery goroutine, which still has to deliver the list),
// then judged against the list as of the first EOSE: with an allowlist,
// judging them against no list would let a removed member through.
func TestCallsBeforeMembershipListAreParked(t *testing.T) {
	caller := strings.Repeat("a", 64)
	relay := strings.Repeat("e", 64)
	srv, err := NewServer(newWireKey(t), mcp.NewServer(&mcp.Implementation{Name: "t"}, nil),
		&ServerOptions{RelayPubKey: relay, Allow: []string{caller}, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	delivered := make(chan struct{})
	go func() {
		for i := range 20 { // five times the pool
			srv.onEvent(&nostr.Event{ID: strings.Repeat("0", 62) + string(rune('a'+i%6)) + "0",
				Kind: KindMessage, PubKey: caller, Tags: nostr.Tags{{"p", srv.self}}})
		}
		srv.onEvent(&nostr.Event{Kind: KindMembershipList, PubKey: relay, CreatedAt: 1,
			Tags: nostr.Tags{{"member", strings.Repeat("b", 64)}}})
		close(delivered)
	}()
	select {
	case <-delivered:
	case <-time.After(10 * time.Second):
		t.Fatal("early calls blocked the delivery goroutine before the membership list")
	}
	if n := len(srv.sem); n != 0 {
		t.Fatalf("%d pool slots taken by parked calls", n)
	}
	parked, snap := srv.settle()
	if len(parked) != 20 || snap == nil {
		t.Fatalf("settle: %d parked, list %v; want 20 and the list", len(parked), snap)
	}
	if srv.allowed(caller, snap) {
		t.Fatal("an allowlisted caller missing from the list was allowed")
	}
	if srv.park(&nostr.Event{Kind: KindMessage}) {
		t.Fatal("a call after the first EOSE was parked")
	}
}

// Open servers never park.
func TestOpenServerDoesNotPark(t *testing.T) {
	srv, err := NewServer(newWireKey(t), mcp.NewServer(&mcp.Implementation{Name: "t"}, nil),
		&ServerOptions{AllowAnyone: true})
	if err != nil {
		t.Fatal(err)
	}
	if srv.park(&nostr.Event{Kind: KindMessage}) {
		t.Fatal("an open server parked a call")
	}
}
