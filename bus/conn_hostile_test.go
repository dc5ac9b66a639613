package bus

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// hostileRelay answers the first REQ with the given events, then EOSE.
func hostileRelay(t *testing.T, events ...nostr.Event) string {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var req []json.RawMessage
			var label, subID string
			if json.Unmarshal(msg, &req) != nil || len(req) < 2 ||
				json.Unmarshal(req[0], &label) != nil || label != "REQ" {
				continue
			}
			json.Unmarshal(req[1], &subID)
			for _, ev := range events {
				frame, _ := json.Marshal([]any{"EVENT", subID, ev})
				ws.WriteMessage(websocket.TextMessage, frame)
			}
			frame, _ := json.Marshal([]any{"EOSE", subID})
			ws.WriteMessage(websocket.TextMessage, frame)
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func TestConnDropsForgedEvents(t *testing.T) {
	key := testutil.NewKey(t)
	good := testutil.Signed(t, key, 1, "genuine")
	forgedSig := good // same id, someone else's signature
	other := testutil.Signed(t, key, 1, "other")
	forgedSig.Sig = other.Sig
	badID := testutil.Signed(t, key, 1, "tampered")
	badID.Content = "tampered after signing"

	url := hostileRelay(t, forgedSig, badID, good, good)
	c := dialConn(t, url, nil, nil)
	var log eventLog
	sub, err := c.Subscribe(testCtx(t), func() nostr.Filters { return nostr.Filters{{Kinds: []int{1}}} }, log.add, nil)
	if err != nil {
		t.Fatal(err)
	}
	// EOSE is dispatched after the events before it, so the log is final.
	waitClosed(t, "EOSE", sub.EOSE())
	if got := log.contents(); len(got) != 1 || got[0] != "genuine" {
		t.Fatalf("delivered %v, want only the genuine event, once", got)
	}
}
