package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// ioTimeout bounds every wait on a relay, so a wedged relay fails the run
// instead of hanging it.
const ioTimeout = 10 * time.Second

var dialer = &websocket.Dialer{HandshakeTimeout: ioTimeout, ReadBufferSize: 4096, WriteBufferSize: 4096}

// client is one raw websocket to a relay, used by one goroutine at a time.
type client struct {
	ws *websocket.Conn
	// challenge is the last NIP-42 challenge seen while reading.
	challenge string
}

func dial(ctx context.Context, url string) (*client, error) {
	ws, _, err := dialer.DialContext(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	return &client{ws: ws}, nil
}

func (c *client) close() { c.ws.Close() }

func (c *client) write(msg []byte) error {
	c.ws.SetWriteDeadline(time.Now().Add(ioTimeout))
	return c.ws.WriteMessage(websocket.TextMessage, msg)
}

// read returns the next message and its label, remembering any NIP-42
// challenge for auth.
func (c *client) read() ([]byte, string, error) {
	c.ws.SetReadDeadline(time.Now().Add(ioTimeout))
	_, msg, err := c.ws.ReadMessage()
	if err != nil {
		return nil, "", err
	}
	l := label(msg)
	if l == "AUTH" {
		c.challenge = lastString(msg)
	}
	return msg, l, nil
}

// next returns the next message that is not an AUTH challenge or a NOTICE.
func (c *client) next() ([]byte, string, error) {
	for {
		msg, l, err := c.read()
		if err != nil || (l != "AUTH" && l != "NOTICE") {
			return msg, l, err
		}
	}
}

// awaitOK reads until the OK for id.
func (c *client) awaitOK(id string) (okFrame, error) {
	for {
		msg, l, err := c.next()
		if err != nil {
			return okFrame{}, err
		}
		if l != "OK" {
			continue
		}
		f, err := parseOK(msg)
		if err != nil || f.id == id {
			return f, err
		}
	}
}

// subscribe opens subscription subID with one filter and waits for its
// EOSE, so that the subscription is known to be live when it returns.
func (c *client) subscribe(subID string, filter nostr.Filter) error {
	req, err := json.Marshal([]any{"REQ", subID, filter})
	if err != nil {
		return err
	}
	if err := c.write(req); err != nil {
		return err
	}
	for {
		msg, l, err := c.next()
		if err != nil {
			return err
		}
		switch l {
		case "EOSE":
			return nil
		case "CLOSED":
			return fmt.Errorf("subscription closed: %s", lastString(msg))
		}
	}
}

// auth answers the relay's NIP-42 challenge as key. The challenge is sent
// on connect by relays that want it, so it waits for one if none was seen.
func (c *client) auth(key *signer.Local, relayURL string) error {
	for c.challenge == "" {
		if _, _, err := c.read(); err != nil {
			return fmt.Errorf("waiting for AUTH challenge: %w", err)
		}
	}
	ev := nostr.Event{Kind: nostr.KindClientAuthentication, CreatedAt: nostr.Now(),
		Tags: nostr.Tags{{"relay", relayURL}, {"challenge", c.challenge}}}
	if err := key.SignEvent(context.Background(), &ev); err != nil {
		return err
	}
	msg, err := json.Marshal([]any{"AUTH", ev})
	if err != nil {
		return err
	}
	if err := c.write(msg); err != nil {
		return err
	}
	f, err := c.awaitOK(ev.ID)
	if err == nil && !f.accepted {
		err = errors.New("AUTH refused: " + f.reason)
	}
	return err
}
