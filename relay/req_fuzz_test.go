package relay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// FuzzReqFilter sends arbitrary filters in REQs to a live relay, from an
// unauthenticated connection and from an authenticated member who is not a
// party to a plaintext tool call in the relay's mailbox, and checks what
// matters whatever the filter: the relay keeps answering (a sentinel REQ
// gets its EOSE on the same connection), the unauthenticated reader gets
// no stored or mailbox event at all (none of the public gift-wrap kinds
// exist here), and the member never gets the tool call addressed to
// someone else.
func FuzzReqFilter(f *testing.F) {
	alice, bob := fixedKey(f, "a1"), fixedKey(f, "b0")
	for _, seed := range []string{
		`{"#p":["` + bob.PublicKey() + `"]}`,
		`{"kinds":[25910],"#p":["` + bob.PublicKey() + `"],"authors":["` + alice.PublicKey() + `"]}`,
		`{}`, `{"kinds":[25910]}`, `{"#p":["` + zeros + `"]}`, `{"ids":["` + zeros + `"]}`,
		`{"kinds":[1],"limit":5}`, `{"authors":[]}`, `{"since":-1,"until":1e30}`,
		`{"kinds":[25910,1059,21059],"limit":0}`, `{"search":"ping"}`, `{"#e":[null]}`,
		`[]`, `null`, `"x"`, `{"limit":-5}`, `{"kinds":[1.5]}`, `{"#p":"` + zeros + `"}`,
	} {
		f.Add([]byte(seed))
	}
	fx := newReqFixture(f)
	f.Fuzz(func(t *testing.T, filter []byte) {
		if len(filter) > 4096 {
			return // size limits have their own tests
		}
		fx.check(t, fx.anon, filter, func(ev eventSeen) string {
			return "an unauthenticated reader received " + ev.String()
		})
		fx.check(t, fx.other, filter, func(ev eventSeen) string {
			if ev.ID == fx.call.ID {
				return "a member who is not a party received the plaintext tool call"
			}
			return ""
		})
	})
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

// reqFixture is one relay holding a member's note and, in its mailbox, a
// plaintext tool call between two members, with two reading connections.
type reqFixture struct {
	call        nostr.Event
	anon, other *testutil.RawConn
}

func newReqFixture(f *testing.F) *reqFixture {
	alice, bob, carol := fixedKey(f, "a1"), fixedKey(f, "b0"), fixedKey(f, "c4")
	r := testutil.StartRelay(f, func(cfg *config.Config) {
		cfg.Workspace.Members = append(cfg.Workspace.Members,
			alice.PublicKey(), bob.PublicKey(), carol.PublicKey())
		cfg.Limits.EventsPerSecond, cfg.Limits.EventsBurst = 1e6, 1e6
	})
	writer := testutil.DialRaw(f, r.URL)
	writer.Auth(alice, r.URL)
	note := testutil.Signed(f, alice, 1, "a member's note")
	writer.SendJSON([]any{"EVENT", note})
	writer.ExpectAccepted()
	call := testutil.Signed(f, alice, 25910, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		nostr.Tag{"p", bob.PublicKey()})
	writer.SendJSON([]any{"EVENT", call})
	writer.ExpectAccepted()
	fx := &reqFixture{call: call, anon: testutil.DialRaw(f, r.URL), other: testutil.DialRaw(f, r.URL)}
	fx.other.Auth(carol, r.URL)
	return fx
}

// fixedKey is the key 32 repetitions of the hex byte b: the same in every
// fuzz worker process, so that inputs naming it stay meaningful.
func fixedKey(f *testing.F, b string) *signer.Local {
	k, err := signer.ParseSecret(strings.Repeat(b, 32))
	if err != nil {
		f.Fatal(err)
	}
	return k
}

// eventSeen is an EVENT the relay sent for the fuzzed subscription.
type eventSeen struct{ ID, raw string }

func (e eventSeen) String() string { return e.raw }

// check sends filter in a REQ on c, then a sentinel REQ, and reads until
// both are answered: the sentinel's EOSE, and the fuzzed one's EOSE or
// CLOSED (or the NOTICE of a malformed message). Every EVENT of the fuzzed
// subscription goes to verdict, which returns a complaint or "".
func (fx *reqFixture) check(t *testing.T, conn *testutil.RawConn, filter []byte, verdict func(eventSeen) string) {
	c := conn.For(t)
	msg := append(append([]byte(`["REQ","fz",`), filter...), ']')
	c.Send(msg)
	c.Send([]byte(`["REQ","sentinel",{"limit":0}]`))
	fuzzDone, sentinelDone := false, false
	for !fuzzDone || !sentinelDone {
		m := c.Next(10 * time.Second)
		var sub string
		if len(m) > 1 {
			json.Unmarshal(m[1], &sub)
		}
		switch label := testutil.Label(m); {
		case label == "NOTICE":
			fuzzDone = true // only the fuzzed message can be malformed
		case (label == "EOSE" || label == "CLOSED") && sub == "fz":
			fuzzDone = true
		case label == "EOSE" && sub == "sentinel":
			sentinelDone = true
		case label == "EVENT" && sub == "fz" && len(m) == 3:
			var ev nostr.Event
			if err := json.Unmarshal(m[2], &ev); err != nil {
				t.Fatalf("relay sent an unreadable event: %s", m[2])
			}
			if complaint := verdict(eventSeen{ID: ev.ID, raw: string(m[2])}); complaint != "" {
				t.Fatalf("filter %s: %s", filter, complaint)
			}
		}
	}
	c.Send([]byte(`["CLOSE","fz"]`))
	c.Send([]byte(`["CLOSE","sentinel"]`))
}
