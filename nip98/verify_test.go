package nip98

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

type verifyCase struct {
	name   string
	ev     nostr.Event        // signed with the test key
	after  func(*nostr.Event) // tampering after signing
	header func(raw []byte) string
	method string
	target string
	body   []byte
	opts   func(*Options)
	prep   func(*http.Request)
	want   error // nil: accepted
}

func TestVerify(t *testing.T) {
	s := newSigner(t)
	now := testNow
	get := func(u string) nostr.Event { return httpEvent(u, "GET", now, nil) }
	body := []byte(`{"method":"banpubkey","params":[]}`)
	post := httpEvent(testURL, "POST", now, body)
	std := func(raw []byte) string { return "Nostr " + base64.StdEncoding.EncodeToString(raw) }
	fixed := func(h string) func([]byte) string { return func([]byte) string { return h } }
	exact := func(o *Options) {}
	prefix := func(o *Options) { o.ExpectedURL, o.URLMode = repoRoot, MatchPrefix }
	repoGet := httpEvent(repoRoot, "GET", now, nil)

	cases := []verifyCase{
		{name: "ok exact", ev: get(testURL)},
		{name: "ok normalised url", ev: get("HTTPS://Relay.EXAMPLE:443/admin/#frag")},
		{name: "ok basic", ev: get(testURL), opts: func(o *Options) { o.AllowBasic = true },
			header: func(raw []byte) string { return basicHeader("git", base64.StdEncoding.EncodeToString(raw)) }},
		{name: "basic not allowed", ev: get(testURL), want: ErrMalformed,
			header: func(raw []byte) string { return basicHeader("git", base64.StdEncoding.EncodeToString(raw)) }},
		{name: "ok url-safe unpadded", ev: httpEvent(testURL, "GET", now, nil, nostr.Tag{"x", "??????"}),
			header: func(raw []byte) string {
				tok := base64.RawURLEncoding.EncodeToString(raw)
				if !strings.ContainsAny(tok, "-_") {
					t.Fatal("fixture does not exercise the url-safe alphabet")
				}
				return "nostr " + tok
			}},
		{name: "ok std unpadded", ev: get(testURL),
			header: func(raw []byte) string { return "Nostr " + base64.RawStdEncoding.EncodeToString(raw) }},
		{name: "missing", ev: get(testURL), header: fixed(""), want: ErrMissing},
		{name: "unknown scheme", ev: get(testURL), header: fixed("Bearer abc"), want: ErrMalformed},
		{name: "bad base64", ev: get(testURL), header: fixed("Nostr !!!!"), want: ErrMalformed},
		{name: "not json", ev: get(testURL), want: ErrMalformed,
			header: fixed("Nostr " + base64.StdEncoding.EncodeToString([]byte("not json")))},
		{name: "trailing garbage", ev: get(testURL), want: ErrMalformed,
			header: func(raw []byte) string { return std(append(raw, "xx"...)) }},
		{name: "header too long", want: ErrMalformed, // genuine, but over the cap
			ev: httpEvent(testURL, "GET", now, nil, nostr.Tag{"x", strings.Repeat("a", MaxHeaderLen*3/4)})},
		{name: "duplicate u tags", ev: httpEvent(testURL, "GET", now, nil, nostr.Tag{"u", testURL}), want: ErrMalformed},
		{name: "wrong kind", ev: func() nostr.Event { e := get(testURL); e.Kind = 1; return e }(), want: ErrWrongKind},
		{name: "bad sig", ev: get(testURL), want: ErrBadSignature,
			after: func(e *nostr.Event) { e.Sig = flipHex(e.Sig, 10) }},
		{name: "wrong id", ev: get(testURL), want: ErrBadSignature,
			after: func(e *nostr.Event) { e.Content = "changed" }},
		{name: "id field swapped", ev: get(testURL), want: ErrBadSignature, // sig still covers the content
			after: func(e *nostr.Event) { e.ID = strings.Repeat("ab", 32) }},
		{name: "past inside", ev: httpEvent(testURL, "GET", now.Add(-60*time.Second), nil)},
		{name: "past outside", ev: httpEvent(testURL, "GET", now.Add(-61*time.Second), nil), want: ErrExpired},
		{name: "future inside", ev: httpEvent(testURL, "GET", now.Add(60*time.Second), nil)},
		{name: "future outside", ev: httpEvent(testURL, "GET", now.Add(61*time.Second), nil), want: ErrExpired},
		{name: "custom window", ev: httpEvent(testURL, "GET", now.Add(-20*time.Second), nil), want: ErrExpired,
			opts: func(o *Options) { o.Window = 10 * time.Second }},
		{name: "url mismatch", ev: get("https://relay.example/other"), want: ErrURLMismatch},
		{name: "url other host", ev: get("https://evil.example/admin"), want: ErrURLMismatch},
		{name: "url query differs", ev: get(testURL + "?x=1"), want: ErrURLMismatch},
		{name: "no u tag", ev: nostr.Event{Kind: nostr.KindHTTPAuth, CreatedAt: nostr.Timestamp(now.Unix()),
			Tags: nostr.Tags{{"method", "GET"}}}, want: ErrURLMismatch},
		{name: "ok prefix info/refs", ev: repoGet, opts: prefix, target: repoRoot + "/info/refs?service=git-receive-pack"},
		{name: "ok prefix root itself", ev: repoGet, opts: prefix, target: repoRoot},
		{name: "prefix other repo", ev: repoGet, opts: prefix, want: ErrURLMismatch,
			target: "https://relay.example/git/npub1abc/other.git/info/refs"},
		{name: "prefix sibling name", ev: repoGet, opts: prefix, want: ErrURLMismatch,
			target: "https://relay.example/git/npub1abc/repo.git2/info/refs"},
		{name: "prefix dot segments", ev: repoGet, opts: prefix, want: ErrURLMismatch,
			target: "https://relay.example/git/npub1abc/repo.git/../other.git/info/refs"},
		{name: "prefix token for sub-url", ev: get(repoRoot + "/info/refs"), opts: prefix, want: ErrURLMismatch,
			target: repoRoot + "/info/refs"},
		{name: "exact ignores request path", ev: get(testURL), opts: exact, target: "https://relay.example/elsewhere"},
		{name: "method mismatch", ev: get(testURL), method: "POST", want: ErrMethodMismatch},
		{name: "skip method", ev: get(testURL), method: "POST", opts: func(o *Options) { o.SkipMethod = true }},
		{name: "method case", ev: httpEvent(testURL, "get", now, nil)},
		{name: "ok payload", ev: post, method: "POST", body: body, opts: func(o *Options) { o.RequirePayload = true }},
		{name: "payload required missing", ev: httpEvent(testURL, "POST", now, nil), method: "POST", body: body,
			opts: func(o *Options) { o.RequirePayload = true }, want: ErrPayloadMissing},
		{name: "payload mismatch", ev: post, method: "POST", body: []byte(`{"method":"allowpubkey"}`),
			opts: func(o *Options) { o.RequirePayload = true }, want: ErrPayloadMismatch},
		{name: "payload present not required mismatch", ev: post, method: "POST", body: []byte("other"),
			want: ErrPayloadMismatch},
		{name: "payload present but no body", ev: post, method: "POST", want: ErrPayloadMismatch},
		{name: "body over cap", ev: post, method: "POST", body: body, want: ErrBodyTooLarge,
			opts: func(o *Options) { o.MaxBody = int64(len(body) - 1) }},
		{name: "body over cap unknown length", ev: post, method: "POST", body: body, want: ErrBodyTooLarge,
			opts: func(o *Options) { o.MaxBody = int64(len(body) - 1) }, prep: hideLength},
		{name: "body at cap unknown length", ev: post, method: "POST", body: body, prep: hideLength,
			opts: func(o *Options) { o.MaxBody = int64(len(body)) }},
		{name: "body at cap", ev: post, method: "POST", body: body,
			opts: func(o *Options) { o.MaxBody = int64(len(body)) }},
		{name: "no expected url", ev: get(testURL), opts: func(o *Options) { o.ExpectedURL = "" }, want: ErrOptions},
		{name: "relative expected url", ev: get(testURL), opts: func(o *Options) { o.ExpectedURL = "/admin" }, want: ErrOptions},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runVerifyCase(t, s.PublicKey(), tc, signJSON(t, s, tc.ev, tc.after)) })
	}
}

func runVerifyCase(t *testing.T, pub string, tc verifyCase, raw []byte) {
	header := "Nostr " + base64.StdEncoding.EncodeToString(raw)
	if tc.header != nil {
		header = tc.header(raw)
	}
	method, target := tc.method, tc.target
	if method == "" {
		method = "GET"
	}
	if target == "" {
		target = testURL
	}
	opts := Options{ExpectedURL: testURL, Now: fixedNow}
	if tc.opts != nil {
		tc.opts(&opts)
	}
	r := newRequest(method, target, header, tc.body)
	if tc.prep != nil {
		tc.prep(r)
	}
	res, err := Verify(r, opts)
	if tc.want != nil {
		if !errors.Is(err, tc.want) {
			t.Fatalf("err = %v, want %v", err, tc.want)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if res.PubKey != pub || res.Event.PubKey != pub {
		t.Fatalf("pubkey = %q, want %q", res.PubKey, pub)
	}
	if got, _ := io.ReadAll(r.Body); string(got) != string(tc.body) {
		t.Fatalf("handler reads body %q, want %q", got, tc.body)
	}
}

// hideLength makes the body look chunked, so only the read limit can catch
// an oversized body.
func hideLength(r *http.Request) {
	r.ContentLength = -1
	r.Body = io.NopCloser(r.Body)
}
