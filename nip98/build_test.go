package nip98

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func TestBuildRoundTrip(t *testing.T) {
	s := newSigner(t)
	body := []byte(`{"method":"listbannedpubkeys","params":[]}`)
	h, err := BuildHeader(context.Background(), s, testURL, "POST", body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "Nostr ") {
		t.Fatalf("header %q lacks the Nostr scheme", h)
	}
	// Real clock on both sides: Build stamps now, Verify checks against now.
	res, err := Verify(newRequest("POST", testURL, h, body), Options{ExpectedURL: testURL, RequirePayload: true})
	if err != nil {
		t.Fatalf("verify own token: %v", err)
	}
	if res.PubKey != s.PublicKey() {
		t.Fatalf("pubkey = %q, want %q", res.PubKey, s.PublicKey())
	}
}

func TestBuildTags(t *testing.T) {
	s := newSigner(t)
	for _, body := range [][]byte{nil, {}, []byte("x")} {
		tok, err := Build(context.Background(), s, testURL, "GET", body)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(tok)
		if err != nil {
			t.Fatalf("token is not standard base64: %v", err)
		}
		var ev nostr.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind != nostr.KindHTTPAuth || ev.Content != "" {
			t.Fatalf("kind %d content %q", ev.Kind, ev.Content)
		}
		if ev.Tags.GetFirst([]string{"u", testURL}) == nil || ev.Tags.GetFirst([]string{"method", "GET"}) == nil {
			t.Fatalf("missing u or method tag: %v", ev.Tags)
		}
		if hasPayload := ev.Tags.GetFirst([]string{"payload"}) != nil; hasPayload != (len(body) > 0) {
			t.Fatalf("body %q: payload tag present = %v", body, hasPayload)
		}
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	s := newSigner(t)
	ctx := context.Background()
	if _, err := Build(ctx, nil, testURL, "GET", nil); err == nil {
		t.Fatal("nil signer accepted")
	}
	if _, err := Build(ctx, s, "/relative", "GET", nil); err == nil {
		t.Fatal("relative url accepted")
	}
	if _, err := Build(ctx, s, testURL, "", nil); err == nil {
		t.Fatal("empty method accepted")
	}
}
