package agentsetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one key of a JSON object with its value kept byte for byte, so
// that numbers, key order and unknown fields survive an edit unchanged.
// Decoding into map[string]any would sort keys and round floats.
type member struct {
	key string
	val json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// parseObject splits a JSON object into its members in document order.
// data must already be valid JSON.
func parseObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // inside an object a token here is a key
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		ms = append(ms, member{key: key, val: raw})
	}
	return ms, nil
}

// encodeObject writes members back as one compact object.
func encodeObject(ms []member) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(m.key, "")
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// setMember gives key the value val: in place of its first occurrence,
// dropping any later duplicate, or appended at the end.
func setMember(ms []member, key string, val json.RawMessage) (out []member, replaced bool) {
	out = make([]member, 0, len(ms)+1)
	for _, m := range ms {
		switch {
		case m.key != key:
			out = append(out, m)
		case !replaced:
			out = append(out, member{key: key, val: val})
			replaced = true
		}
	}
	if !replaced {
		out = append(out, member{key: key, val: val})
	}
	return out, replaced
}

// lookup returns key's value and how many times key occurs.
func lookup(ms []member, key string) (json.RawMessage, int) {
	var val json.RawMessage
	n := 0
	for _, m := range ms {
		if m.key == key {
			val, n = m.val, n+1
		}
	}
	return val, n
}

// MergeJSON returns old, an mcp.json document, with mcpServers.name set to
// entry and everything else as it was (re-indented with two spaces).
// replaced tells whether an entry of that name existed. An empty old is an
// empty document; anything that is not a JSON object is refused.
func MergeJSON(old []byte, name string, entry json.RawMessage) (merged []byte, replaced bool, err error) {
	if len(bytes.TrimSpace(old)) == 0 {
		old = []byte("{}")
	}
	if !json.Valid(old) {
		return nil, false, errors.New("not valid JSON (comments and trailing commas are not JSON either)")
	}
	top, err := parseObject(old)
	if err != nil {
		return nil, false, fmt.Errorf("top level: %w", err)
	}
	var servers []member
	switch raw, n := lookup(top, "mcpServers"); n {
	case 0:
	case 1:
		if servers, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf("mcpServers: %w", err)
		}
	default:
		// Readers disagree on which duplicate wins; guessing could drop
		// the servers the user actually relies on.
		return nil, false, errors.New(`"mcpServers" appears more than once`)
	}
	servers, replaced = setMember(servers, name, entry)
	return encodeMerged(top, servers, replaced)
}

func encodeMerged(top, servers []member, replaced bool) ([]byte, bool, error) {
	raw, err := encodeObject(servers)
	if err != nil {
		return nil, false, err
	}
	top, _ = setMember(top, "mcpServers", raw)
	compact, err := encodeObject(top)
	if err != nil {
		return nil, false, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), replaced, nil
}
