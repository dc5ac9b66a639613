package relay

import (
	"encoding/json"
	"strconv"

	"github.com/mailru/easyjson"
	"github.com/nbd-wtf/go-nostr"
)

// Outgoing NIP-01 messages are built here, with every string JSON-escaped:
// a subscription id chosen by a client must not be able to break the frame.

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func okMsg(id string, ok bool, reason string) []byte {
	b := make([]byte, 0, 96+len(reason))
	b = append(b, `["OK",`...)
	b = append(b, quote(id)...)
	b = append(b, ',')
	b = strconv.AppendBool(b, ok)
	b = append(b, ',')
	b = append(b, quote(reason)...)
	return append(b, ']')
}

func noticeMsg(text string) []byte {
	return append(append([]byte(`["NOTICE",`), quote(text)...), ']')
}

func eoseMsg(subID string) []byte {
	return append(append([]byte(`["EOSE",`), quote(subID)...), ']')
}

func closedMsg(subID, reason string) []byte {
	b := append([]byte(`["CLOSED",`), quote(subID)...)
	b = append(b, ',')
	return append(append(b, quote(reason)...), ']')
}

func authMsg(challenge string) []byte {
	return append(append([]byte(`["AUTH",`), quote(challenge)...), ']')
}

// eventJSON serialises an event once per broadcast; eventMsg then wraps it
// for each subscriber without re-encoding.
func eventJSON(ev *nostr.Event) []byte {
	b, _ := easyjson.Marshal(ev)
	return b
}

func eventMsg(subID string, evJSON []byte) []byte {
	q := quote(subID)
	b := make([]byte, 0, 12+len(q)+len(evJSON))
	b = append(b, `["EVENT",`...)
	b = append(b, q...)
	b = append(b, ',')
	b = append(b, evJSON...)
	return append(b, ']')
}
