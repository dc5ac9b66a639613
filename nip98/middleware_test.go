package nip98

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// echoPubKey writes the context pubkey and the body it can read.
var echoPubKey = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	pk, ok := PubKeyFromContext(r.Context())
	if !ok {
		http.Error(w, "no pubkey in context", http.StatusInternalServerError)
		return
	}
	b, _ := io.ReadAll(r.Body)
	io.WriteString(w, pk+"|"+string(b))
})

func serve(opts Options, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	Middleware(opts)(echoPubKey).ServeHTTP(rec, r)
	return rec
}

func TestMiddlewareRejects(t *testing.T) {
	for _, basic := range []bool{false, true} {
		opts := Options{ExpectedURL: testURL, Now: fixedNow, AllowBasic: basic}
		rec := serve(opts, newRequest("GET", testURL, "", nil))
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("status = %d, want 401", rec.Code)
		}
		want := []string{"Nostr"}
		if basic {
			want = append(want, `Basic realm="toolbus"`)
		}
		if got := rec.Header().Values("WWW-Authenticate"); !slices.Equal(got, want) {
			t.Fatalf("WWW-Authenticate = %q, want %q", got, want)
		}
		if !strings.Contains(rec.Body.String(), "missing") {
			t.Fatalf("reason %q does not say what is wrong", rec.Body.String())
		}
	}
}

func TestMiddlewareAccepts(t *testing.T) {
	s := newSigner(t)
	body := []byte(`{"method":"supportedmethods","params":[]}`)
	h := nostrHeader(t, s, httpEvent(testURL, "POST", testNow, body), nil)
	opts := Options{ExpectedURL: testURL, Now: fixedNow, RequirePayload: true}
	rec := serve(opts, newRequest("POST", testURL, h, body))
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", rec.Code, rec.Body.String())
	}
	if want := s.PublicKey() + "|" + string(body); rec.Body.String() != want {
		t.Fatalf("handler saw %q, want %q", rec.Body.String(), want)
	}
}

func TestMiddlewareStatusCodes(t *testing.T) {
	s := newSigner(t)
	body := []byte("0123456789")
	h := nostrHeader(t, s, httpEvent(testURL, "POST", testNow, body), nil)
	tooLarge := serve(Options{ExpectedURL: testURL, Now: fixedNow, MaxBody: 4}, newRequest("POST", testURL, h, body))
	if tooLarge.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("over cap: status = %d, want 413", tooLarge.Code)
	}
	misconfigured := serve(Options{Now: fixedNow}, newRequest("POST", testURL, h, body))
	if misconfigured.Code != http.StatusInternalServerError {
		t.Fatalf("no ExpectedURL: status = %d, want 500", misconfigured.Code)
	}
}

func TestPubKeyFromContext(t *testing.T) {
	r := httptest.NewRequest("GET", testURL, nil)
	if _, ok := PubKeyFromContext(r.Context()); ok {
		t.Fatal("empty context reports a pubkey")
	}
	if pk, ok := PubKeyFromContext(WithPubKey(r.Context(), "ab")); !ok || pk != "ab" {
		t.Fatalf("got %q, %v", pk, ok)
	}
}
