package bus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzDecodeMatchesSDK holds decodeRPC to go-sdk's jsonrpc.DecodeMessage:
// on every valid JSON input both accept or both refuse, and what they
// accept is the same message.
func FuzzDecodeMatchesSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","method":"","id":1}`, `{"JSONRPC":"2.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x"}`, `{"jsonrpc":"2.0","id":null,"result":1}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, `{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}`, `{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, `{"jsonrpc":"2.0","id":1,"result":null}`,
		`[1]`, `"x"`, `null`, `{}`, strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		data := []byte(content)
		if !json.Valid(data) {
			return
		}
		ours, errOurs := decodeRPC(data)
		sdk, errSDK := jsonrpc.DecodeMessage(data)
		if (errOurs == nil) != (errSDK == nil) {
			t.Fatalf("%q: decodeRPC err %v, go-sdk err %v", content, errOurs, errSDK)
		}
		if errOurs != nil {
			return
		}
		if a, b := describe(ours), describe(sdk); a != b {
			t.Fatalf("%q:\n decodeRPC %s\n go-sdk    %s", content, a, b)
		}
	})
}

// describe renders everything a session reads from a message.
func describe(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request method=%q id=%#v params=%s", m.Method, m.ID.Raw(), compact(m.Params))
	case *jsonrpc.Response:
		e := "none"
		if we, ok := m.Error.(*jsonrpc.Error); ok {
			e = fmt.Sprintf("%d %q %s", we.Code, we.Message, compact(we.Data))
		} else if m.Error != nil {
			e = fmt.Sprintf("%T %v", m.Error, m.Error)
		}
		return fmt.Sprintf("response id=%#v result=%s error=%s", m.ID.Raw(), compact(m.Result), e)
	}
	return fmt.Sprintf("%T", m)
}

func compact(raw []byte) string {
	if raw == nil {
		return "<nil>"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "invalid:" + string(raw)
	}
	return b.String()
}
