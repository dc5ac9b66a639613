package mcpadapter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolbus/internal/testutil"
)

// A child that keeps dying is restarted after delays that double from
// MinBackoff up to MaxBackoff; once a child has run for a while (longer
// than twice MaxBackoff), the next delay starts over at MinBackoff. The
// delays are the ones the bridge chose (observed through its restarting
// seam); the child's own start times show that it really waited them.
func TestBridgeRestartBackoff(t *testing.T) {
	const minB, maxB = 20 * time.Millisecond, 160 * time.Millisecond
	const quickDeaths = 5 // then each child serves for 0.5 s (> 2*maxB) before dying
	dir := t.TempDir()
	count, starts := filepath.Join(dir, "count"), filepath.Join(dir, "starts")
	bin := testutil.Binary(t, "toolbus")
	script := fmt.Sprintf(`n=$(( $(cat %[1]s 2>/dev/null || echo 0) + 1 )); echo $n > %[1]s; date +%%s%%N >> %[2]s
if [ $n -gt %[3]d ]; then exec timeout 0.5 %[4]s tools --stdio --workdir %[5]s; fi
exit 1`, count, starts, quickDeaths, bin, dir)
	b, err := NewBridge(BridgeOptions{Name: "dying", Command: []string{"/bin/sh", "-c", script},
		Env: os.Environ(), MinBackoff: minB, MaxBackoff: maxB, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{minB, 2 * minB, 4 * minB, maxB, maxB, minB, minB}
	delays := make(chan time.Duration, 100)
	b.restarting = func(d time.Duration) { delays <- d }
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	var got []time.Duration
	for len(got) < len(want) {
		select {
		case d := <-delays:
			got = append(got, d)
		case <-ctx.Done():
			t.Fatalf("only %d restarts before the deadline: %v", len(got), got)
		}
	}
	// The restart after the last observed delay: its start time ends the
	// last gap.
	waitUntil(t, "the last restart", func() bool { return len(startTimes(t, starts)) > len(want) })
	cancel()
	<-done
	select {
	case <-b.Ready():
	default:
		t.Error("the children that served were never mirrored")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("restart delays %v, want %v", got, want)
		}
	}
	at := startTimes(t, starts)
	for i, d := range want {
		if gap := at[i+1].Sub(at[i]); gap < d {
			t.Errorf("restart %d came %v after the previous start, before its %v delay", i+1, gap, d)
		}
	}
}

func startTimes(t *testing.T, path string) []time.Time {
	data, _ := os.ReadFile(path)
	var out []time.Time
	for _, line := range strings.Fields(string(data)) {
		ns, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			t.Fatalf("start time %q: %v", line, err)
		}
		out = append(out, time.Unix(0, ns))
	}
	return out
}
