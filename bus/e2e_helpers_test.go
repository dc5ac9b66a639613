package bus

import (
	"encoding/json"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/relay"
	"toolbus/signer"
)

func newKey(t *testing.T) *signer.Local { return testutil.NewKey(t) }

func manage(t *testing.T, f *busFixture, method string, params ...any) (json.RawMessage, error) {
	return relay.Manage(testCtx(t), f.r.HTTPURL, f.r.Admin, method, params...)
}

// queryKinds reads the worker's stored events of kinds, as a member.
func queryKinds(t *testing.T, f *busFixture, kinds ...int) []*nostr.Event {
	c := dialConn(t, f.r.URL, f.r.Member, nil)
	defer c.Close()
	var log eventLog
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: kinds, Authors: []string{f.worker.PublicKey()}}}
	}
	sub, err := c.Subscribe(testCtx(t), filters, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "EOSE", sub.EOSE())
	sub.Close()
	log.mu.Lock()
	defer log.mu.Unlock()
	return append([]*nostr.Event(nil), log.evs...)
}
