package bus

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// rpcWire is one JSON-RPC 2.0 message as it arrives. Method is raw so that
// a present but empty method can be told from a missing one.
type rpcWire struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decodeRPC is jsonrpc.DecodeMessage with the same JSON library and the
// same rules (exact-case field names, "2.0" only, ids that are strings or
// numbers, a response needs an id), without the decoder that call builds
// per message: its 64 KB read buffer was most of a tool call's garbage.
// A differential fuzz test (FuzzDecodeMatchesSDK) holds the two together.
func decodeRPC(data []byte) (jsonrpc.Message, error) {
	if err := checkDepth(data, maxJSONDepth); err != nil {
		return nil, err
	}
	var w rpcWire
	if _, err := segjson.Parse(data, &w, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if w.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", w.Version, "2.0")
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	if len(w.Method) > 0 {
		var method string
		if err := segjson.Unmarshal(w.Method, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, nil
}

// maxJSONDepth bounds nesting as go-sdk's decoder does: no MCP message
// nests anywhere near it, and the bound keeps a hostile message cheap.
const maxJSONDepth = 1000

// checkDepth refuses data nested deeper than max objects and arrays,
// scanning once and skipping string contents.
func checkDepth(data []byte, max int) error {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > max {
				return fmt.Errorf("json: exceeded maximum nesting depth of %d", max)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}
