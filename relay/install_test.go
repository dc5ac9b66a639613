package relay_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fiatjaf/eventstore/slicestore"
	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/relay"
)

// Install works in a plain khatru relay served by khatru's own handler:
// members write, others are restricted, non-members read nothing private.
func TestInstallIntoKhatru(t *testing.T) {
	member, stranger := testutil.NewKey(t), testutil.NewKey(t)
	store := &slicestore.SliceStore{}
	store.Init()
	kr := khatru.NewRelay()
	kr.StoreEvent = append(kr.StoreEvent, store.SaveEvent)
	kr.QueryEvents = append(kr.QueryEvents, store.QueryEvents)
	acl, err := relay.NewACL(false, []string{member.PublicKey()}, nil, t.TempDir()+"/acl.json")
	if err != nil {
		t.Fatal(err)
	}
	relay.Install(kr, relay.Options{Membership: acl, Limits: config.Default().Limits})
	srv := httptest.NewServer(kr)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx := ctx5(t)

	mc := testutil.Connect(t, url, nil)
	ev := testutil.Signed(t, member, 1, "via khatru")
	if err := mc.Publish(ctx, ev); err != nil {
		t.Fatalf("member publish: %v", err)
	}
	sc := testutil.Connect(t, url, nil)
	err = sc.Publish(ctx, testutil.Signed(t, stranger, 1, "nope"))
	if err == nil || !strings.Contains(err.Error(), "restricted:") {
		t.Fatalf("stranger publish: want restricted:, got %v", err)
	}
	got, _ := sc.QuerySync(ctx, nostr.Filter{})
	if len(got) != 0 {
		t.Fatalf("unauthenticated reader got %d events", len(got))
	}
}
