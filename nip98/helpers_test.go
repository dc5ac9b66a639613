package nip98

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

const (
	testURL  = "https://relay.example/admin"
	repoRoot = "https://relay.example/git/npub1abc/repo.git"
	// Fixed key so fuzz workers and the corpus agree on what is genuine.
	fixedSecret = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
)

var testNow = time.Unix(1_700_000_000, 0)

func fixedNow() time.Time { return testNow }

func fixedSigner(t testing.TB) *signer.Local {
	t.Helper()
	s, err := signer.ParseSecret(fixedSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newSigner(t testing.TB) *signer.Local {
	t.Helper()
	s, err := signer.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// httpEvent is an unsigned kind-27235 event; extra tags are appended.
func httpEvent(u, method string, at time.Time, body []byte, extra ...nostr.Tag) nostr.Event {
	ev := nostr.Event{
		Kind:      nostr.KindHTTPAuth,
		CreatedAt: nostr.Timestamp(at.Unix()),
		Tags:      nostr.Tags{{"u", u}, {"method", method}},
	}
	if body != nil {
		sum := sha256.Sum256(body)
		ev.Tags = append(ev.Tags, nostr.Tag{"payload", hex.EncodeToString(sum[:])})
	}
	ev.Tags = append(ev.Tags, extra...)
	return ev
}

// signJSON signs ev, applies after (to tamper post-signature) and returns
// the event JSON.
func signJSON(t testing.TB, s signer.Signer, ev nostr.Event, after func(*nostr.Event)) []byte {
	t.Helper()
	if err := s.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	if after != nil {
		after(&ev)
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// nostrHeader is the usual "Nostr <std base64>" form.
func nostrHeader(t testing.TB, s signer.Signer, ev nostr.Event, after func(*nostr.Event)) string {
	t.Helper()
	return "Nostr " + base64.StdEncoding.EncodeToString(signJSON(t, s, ev, after))
}

func basicHeader(user, token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+token))
}

func newRequest(method, target, auth string, body []byte) *http.Request {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	return r
}

func flipHex(s string, i int) string {
	b := []byte(s)
	if b[i] == '0' {
		b[i] = '1'
	} else {
		b[i] = '0'
	}
	return string(b)
}
