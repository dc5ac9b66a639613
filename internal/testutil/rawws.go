package testutil

import (
	"context"

	"encoding/json"
	"github.com/nbd-wtf/go-nostr"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// RawConn is a bare websocket to the relay for tests that send what no
// well-behaved client library would.
type RawConn struct {
	t  testing.TB
	ws *websocket.Conn
}

// DialRaw opens a raw websocket.
func DialRaw(t testing.TB, url string) *RawConn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { ws.Close() })
	return &RawConn{t: t, ws: ws}
}

// For returns the same connection reporting failures to t: a fuzz target
// dials once in its *testing.F and reads in each input's *testing.T.
func (c *RawConn) For(t testing.TB) *RawConn { return &RawConn{t: t, ws: c.ws} }

// Send writes one text message.
func (c *RawConn) Send(msg []byte) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// SendJSON marshals v and sends it.
func (c *RawConn) SendJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.Send(b)
}

// Next returns the next message that is not an AUTH challenge, as a JSON
// array, failing the test after timeout.
func (c *RawConn) Next(timeout time.Duration) []json.RawMessage {
	c.t.Helper()
	for {
		c.ws.SetReadDeadline(time.Now().Add(timeout))
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		var arr []json.RawMessage
		if err := json.Unmarshal(msg, &arr); err != nil || len(arr) == 0 {
			c.t.Fatalf("relay sent non-array %q", msg)
		}
		if Label(arr) != "AUTH" {
			return arr
		}
	}
}

// Expect reads the next message and checks its label and that its reason
// (the last element) starts with prefix. It returns the message.
func (c *RawConn) Expect(label, prefix string) []json.RawMessage {
	c.t.Helper()
	arr := c.Next(10 * time.Second)
	if Label(arr) != label {
		c.t.Fatalf("want %s, got %s", label, arr)
	}
	var reason string
	json.Unmarshal(arr[len(arr)-1], &reason)
	if !strings.HasPrefix(reason, prefix) {
		c.t.Fatalf("want %s reason with prefix %q, got %q", label, prefix, reason)
	}
	return arr
}

// Label returns the first element of a relay message.
func Label(arr []json.RawMessage) string {
	var s string
	json.Unmarshal(arr[0], &s)
	return s
}

// Auth waits for the relay's AUTH challenge and answers it as key.
func (c *RawConn) Auth(key interface {
	SignEvent(context.Context, *nostr.Event) error
}, relayURL string) {
	c.t.Helper()
	ev := nostr.Event{Kind: nostr.KindClientAuthentication, CreatedAt: nostr.Now(),
		Tags: nostr.Tags{{"relay", relayURL}, {"challenge", c.Challenge()}}}
	if err := key.SignEvent(context.Background(), &ev); err != nil {
		c.t.Fatal(err)
	}
	c.SendJSON([]any{"AUTH", ev})
	c.Expect("OK", "")
}

// Challenge waits for the relay's AUTH challenge and returns it.
func (c *RawConn) Challenge() string {
	c.t.Helper()
	for {
		c.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for AUTH challenge: %v", err)
		}
		var arr []string
		if json.Unmarshal(msg, &arr) == nil && len(arr) == 2 && arr[0] == "AUTH" {
			return arr[1]
		}
	}
}

// Closed drains the connection and reports whether the relay closed it
// within timeout.
func (c *RawConn) Closed(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		c.ws.SetReadDeadline(deadline)
		if _, _, err := c.ws.ReadMessage(); err != nil {
			return !isTimeout(err)
		}
	}
	return false
}

func isTimeout(err error) bool {
	ne, ok := err.(interface{ Timeout() bool })
	return ok && ne.Timeout()
}

// UntilEOSE reads messages until the EOSE of subID and returns everything
// read before it.
func (c *RawConn) UntilEOSE(subID string) [][]json.RawMessage {
	c.t.Helper()
	var seen [][]json.RawMessage
	for {
		m := c.Next(10 * time.Second)
		if Label(m) == "EOSE" {
			var id string
			json.Unmarshal(m[1], &id)
			if id == subID {
				return seen
			}
		}
		seen = append(seen, m)
	}
}

// ExpectAccepted reads the next message and checks that it is OK true.
func (c *RawConn) ExpectAccepted() {
	c.t.Helper()
	arr := c.Expect("OK", "")
	if string(arr[2]) != "true" {
		c.t.Fatalf("event refused: %s", arr)
	}
}
