package bench

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// startBaseline serves a Baseline in-process on a loopback port and
// returns its websocket URL.
func startBaseline(t *testing.T) string {
	t.Helper()
	b, err := NewBaseline(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(b)
	t.Cleanup(func() {
		srv.Close()
		b.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func testCrew(t *testing.T) *crew {
	t.Helper()
	c, err := newCrew()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sign(t *testing.T, c *crew, pub, kind, n int) []signed {
	t.Helper()
	evs, err := signEvents(c.publishers[pub], kind, n, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestIngestCountsEveryOK checks the generator against a real relay: with
// a deadline far away, every pre-signed event is sent and acknowledged once.
func TestIngestCountsEveryOK(t *testing.T) {
	url := startBaseline(t)
	c := testCrew(t)
	pools := [][]signed{sign(t, c, 0, 1, 30), sign(t, c, 1, 1, 20)}
	res, err := runIngest(context.Background(), url, pools, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != 50 || len(res.rejected) != 0 || !res.exhausted {
		t.Fatalf("ok=%d rejected=%v exhausted=%v, want 50 accepted, none rejected, pool exhausted", res.ok, res.rejected, res.exhausted)
	}
	if o := ingestOutcome("ingest_2", res); len(o.failures) != 0 || len(o.samples["rate"]) != 1 {
		t.Fatalf("outcome = %+v", o)
	}
}

// TestIngestReportsOKFalse uses khatru's refusal of ephemeral events nobody
// listens to as a reliable OK false.
func TestIngestReportsOKFalse(t *testing.T) {
	url := startBaseline(t)
	res, err := runIngest(context.Background(), url, [][]signed{sign(t, testCrew(t), 0, 20001, 5)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != 0 || len(res.rejected) != 1 {
		t.Fatalf("ok=%d rejected=%v, want 0 accepted and one reason", res.ok, res.rejected)
	}
	o := ingestOutcome("ingest_1", res)
	if len(o.failures) != 1 || !strings.Contains(o.failures[0], "5× OK false") {
		t.Fatalf("failures = %q", o.failures)
	}
}

func TestLatencyOneSamplePerEvent(t *testing.T) {
	url := startBaseline(t)
	c := testCrew(t)
	for _, kind := range []int{1, 20001} {
		filter := nostr.Filter{Kinds: []int{kind}, Authors: []string{c.publishers[0].PublicKey()}, LimitZero: true}
		lat, err := runLatency(context.Background(), live{url: url}, c.reader, filter, sign(t, c, 0, kind, 22), 2)
		if err != nil {
			t.Fatalf("kind %d: %v", kind, err)
		}
		if len(lat) != 20 {
			t.Fatalf("kind %d: %d samples, want 20", kind, len(lat))
		}
		for _, ms := range lat {
			if ms < 0 {
				t.Fatalf("kind %d: negative latency %v", kind, ms)
			}
		}
	}
}

func TestOpenIdle(t *testing.T) {
	url := startBaseline(t)
	filter := nostr.Filter{Kinds: []int{nostr.KindGiftWrap}, Tags: nostr.TagMap{"p": []string{strings.Repeat("ab", 32)}}, LimitZero: true}
	conns, err := openIdle(context.Background(), url, 20, filter)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(conns)
	for i, c := range conns {
		if c == nil {
			t.Fatalf("connection %d missing", i)
		}
	}
}
