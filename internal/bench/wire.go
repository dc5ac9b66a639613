package bench

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Relay messages are parsed with fast paths for the compact frames both
// relays send, falling back to encoding/json for anything else. The load
// generator shares the cores with the relay it measures, so every
// microsecond it spends per message is taken from the relay under test.

// label returns the first element of a relay message ("OK", "EVENT", ...).
func label(msg []byte) string {
	if len(msg) > 2 && msg[0] == '[' && msg[1] == '"' {
		if i := bytes.IndexByte(msg[2:], '"'); i >= 0 {
			return string(msg[2 : 2+i])
		}
	}
	var arr []json.RawMessage
	if json.Unmarshal(msg, &arr) != nil || len(arr) == 0 {
		return ""
	}
	var s string
	json.Unmarshal(arr[0], &s)
	return s
}

// okFrame is a decoded ["OK", id, accepted, reason].
type okFrame struct {
	id       string
	accepted bool
	reason   string
}

var okTruePrefix = []byte(`["OK","`)

// parseOK decodes an OK message.
func parseOK(msg []byte) (okFrame, error) {
	// Fast path: ["OK","<64 hex>",true,...
	if len(msg) >= 7+64+6 && bytes.HasPrefix(msg, okTruePrefix) &&
		string(msg[7+64:7+64+6]) == `",true` {
		return okFrame{id: string(msg[7 : 7+64]), accepted: true}, nil
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(msg, &arr); err != nil || len(arr) < 3 {
		return okFrame{}, errors.New("malformed OK: " + string(msg))
	}
	var f okFrame
	json.Unmarshal(arr[1], &f.id)
	json.Unmarshal(arr[2], &f.accepted)
	if len(arr) > 3 {
		json.Unmarshal(arr[3], &f.reason)
	}
	return f, nil
}

var idKey = []byte(`"id":"`)

// eventID returns the id of the event in an ["EVENT", sub, event] message.
func eventID(msg []byte) (string, error) {
	// Quotes inside string values are escaped, so `"id":"` can only be the
	// key itself.
	if i := bytes.Index(msg, idKey); i >= 0 && len(msg) >= i+len(idKey)+64 {
		return string(msg[i+len(idKey) : i+len(idKey)+64]), nil
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(msg, &arr); err != nil || len(arr) < 3 {
		return "", errors.New("malformed EVENT: " + string(msg))
	}
	var ev struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(arr[2], &ev); err != nil {
		return "", err
	}
	return ev.ID, nil
}

// lastString returns the last element of a message as a string (the reason
// of a CLOSED or the text of a NOTICE), or "" when it is not one.
func lastString(msg []byte) string {
	var arr []json.RawMessage
	if json.Unmarshal(msg, &arr) != nil || len(arr) == 0 {
		return ""
	}
	var s string
	json.Unmarshal(arr[len(arr)-1], &s)
	return s
}
