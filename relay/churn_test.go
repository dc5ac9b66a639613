package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// Subscribe/unsubscribe churn while events are published: meant for -race
// (make test runs it so). Raw websockets only, so the race detector looks
// at the relay and not at a client library.
func TestSubscriptionChurnWithPublishing(t *testing.T) {
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1e6, 1e6
		c.Limits.IPEventsPerSecond, c.Limits.IPEventsBurst = 1e6, 1e6
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); churn(t, r.URL, r.Member, uint64(i), stop) }()
	}
	for _, kind := range []int{1, 20001} {
		wg.Add(1)
		go func() { defer wg.Done(); flood(r.URL, r.Admin, kind, stop) }()
	}
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()

	// Still serving.
	c := testutil.DialRaw(t, r.URL)
	c.Auth(r.Member, r.URL)
	c.SendJSON([]any{"EVENT", testutil.Signed(t, r.Member, 1, "after the churn")})
	c.ExpectAccepted()
}

func churn(t *testing.T, url string, key *signer.Local, seed uint64, stop <-chan struct{}) {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Error(err)
		return
	}
	defer ws.Close()
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	rng := rand.New(rand.NewPCG(seed, 7))
	filters := []nostr.Filter{{Kinds: []int{1}}, {Kinds: []int{20001}}, {Authors: []string{key.PublicKey()}},
		{Tags: nostr.TagMap{"p": {key.PublicKey()}}}, {}, {Kinds: []int{1}, LimitZero: true}}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		id := fmt.Sprint("s", rng.IntN(8))
		var msg []byte
		if rng.IntN(3) == 0 {
			msg, _ = json.Marshal([]any{"CLOSE", id})
		} else {
			msg, _ = json.Marshal([]any{"REQ", id, filters[rng.IntN(len(filters))]})
		}
		if ws.WriteMessage(websocket.TextMessage, msg) != nil {
			return
		}
	}
}

func flood(url string, key *signer.Local, kind int, stop <-chan struct{}) {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		ev := nostr.Event{Kind: kind, Content: fmt.Sprint(i), CreatedAt: nostr.Now(), Tags: nostr.Tags{{"p", key.PublicKey()}}}
		key.SignEvent(context.Background(), &ev)
		msg, _ := json.Marshal([]any{"EVENT", ev})
		if ws.WriteMessage(websocket.TextMessage, msg) != nil {
			return
		}
	}
}
