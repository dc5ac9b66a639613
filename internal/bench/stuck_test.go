package bench

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stuckEvents returns enough events to fill every buffer in front of a
// client that stopped reading, on loopback: three times the largest socket
// send buffer the kernel allows (4 MiB by default), 400 at least.
func stuckEvents() int {
	n := 400
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 {
			if wmem, err := strconv.Atoi(f[2]); err == nil {
				n = max(n, 3*wmem/stuckContentBytes)
			}
		}
	}
	return n
}

// TestStuckClientStallsBareKhatru shows that the stuck client really stops
// reading: bare khatru writes to it from the publisher's goroutine, so once
// its buffers are full the publisher's OK stops coming. The stalled event
// and those never sent count at the timeout.
func TestStuckClientStallsBareKhatru(t *testing.T) {
	c := testCrew(t)
	evs, err := signLarge(c.publishers[0], stuckKind, stuckEvents(), stuckContentBytes, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	const healthy, warmup = 2, 3
	timeout := time.Second
	res, err := runStuck(testCtx(t), live{url: startBaseline(t)}, c, healthy, evs, warmup, timeout)
	if err != nil {
		t.Fatal(err)
	}
	if res.stalledAt < 0 {
		t.Fatalf("bare khatru never stalled on a subscriber that stopped reading (%d events of %d KiB)", len(evs), stuckContentBytes>>10)
	}
	want := len(evs) - min(warmup, res.stalledAt)
	if len(res.okMs) != want || len(res.subMs) != healthy*want {
		t.Fatalf("%d OK and %d delivery samples, want %d and %d", len(res.okMs), len(res.subMs), want, healthy*want)
	}
	if slices.Max(res.okMs) != float64(timeout.Milliseconds()) {
		t.Fatalf("max OK sample %v, want the timeout", slices.Max(res.okMs))
	}
	if o := stuckOutcome(res, len(evs), timeout); len(o.notes) != 1 {
		t.Fatalf("notes = %q", o.notes)
	}
}

// TestStuckToolbusKeepsPublishing measures the same on toolbus, whose
// delivery never waits on a subscriber: every event is measured, none at
// the (generous) timeout.
func TestStuckToolbusKeepsPublishing(t *testing.T) {
	c := testCrew(t)
	evs, err := signLarge(c.publishers[0], stuckKind, stuckEvents(), stuckContentBytes, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	const healthy, warmup = 2, 3
	r := live{url: startCrewToolbus(t, c), auth: true}
	res, err := runStuck(testCtx(t), r, c, healthy, evs, warmup, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := len(evs) - warmup
	if res.stalledAt != -1 || len(res.okMs) != n || len(res.subMs) != healthy*n || len(res.rejected) != 0 {
		t.Fatalf("stalled at %d, %d OK and %d delivery samples, rejected %v; want no stall, %d and %d",
			res.stalledAt, len(res.okMs), len(res.subMs), res.rejected, n, healthy*n)
	}
}
