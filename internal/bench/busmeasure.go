package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// callFunc makes one echo call as caller i (an index into the side's
// callers) and returns nil only when the right text came back.
type callFunc func(ctx context.Context, i int, text string) error

// variant is one way a side makes calls: "plaintext" or "wrapped".
type variant struct {
	name string
	call callFunc
}

// busSide is one relay's bus setup, ready to call.
type busSide struct {
	variants []variant // plaintext first
	close    func()
}

// startBusSide starts the tool bus with n callers on the toolbus relay, or
// the floor exchange on the baseline relay.
func startBusSide(ctx context.Context, r live, bc *busCrew, n int) (*busSide, error) {
	switch r.name {
	case toolbusName:
		return startToolbusSide(ctx, r.url, bc, n)
	case baselineName:
		return startFloorSide(ctx, r.url, bc, n)
	default:
		return nil, fmt.Errorf("no bus side for relay %q", r.name)
	}
}

// callTimeout bounds one call: long enough for any queueing a loaded relay
// can build up, short enough that a lost reply does not stall the run.
const callTimeout = 10 * time.Second

// callSeq numbers call texts across the process, so that no two requests
// are the same event even when key, second and JSON-RPC id coincide.
var callSeq atomic.Int64

// callOnce makes one call as caller i with a fresh text.
func callOnce(ctx context.Context, call callFunc, i int) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return call(ctx, i, fmt.Sprintf("echo %010d", callSeq.Add(1)))
}

// warmUp makes busWarmup calls from each of n callers at once.
func warmUp(ctx context.Context, call callFunc, n int) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for range busWarmup {
				if errs[i] = callOnce(ctx, call, i); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxRTTFailures ends a round-trip series early: each failure can cost a
// whole callTimeout, and a side failing this often has nothing to measure.
const maxRTTFailures = 5

// measureRTT makes calls one after the other as caller 0 until n have
// succeeded, and returns each one's milliseconds from sending the request
// (signing included) to holding the checked result.
func measureRTT(ctx context.Context, call callFunc, n int) ([]float64, tally) {
	lat := make([]float64, 0, n)
	var fails tally
	for len(lat) < n && fails.n < maxRTTFailures && ctx.Err() == nil {
		start := time.Now()
		if err := callOnce(ctx, call, 0); err != nil {
			fails.add(err)
			continue
		}
		lat = append(lat, float64(time.Since(start))/float64(time.Millisecond))
	}
	return lat, fails
}

// measureRate has callers 0..n-1 call back-to-back for d and returns the
// successful calls completed within d per second. Calls still in flight at
// the end are waited for, so that they do not overlap what runs next, but
// not counted.
func measureRate(ctx context.Context, call callFunc, n int, d time.Duration) (float64, tally) {
	end := time.Now().Add(d)
	counts := make([]int, n)
	fails := make([]tally, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				err := callOnce(ctx, call, i)
				switch {
				case err != nil:
					fails[i].add(err)
				case !time.Now().After(end):
					counts[i]++
				}
			}
		})
	}
	wg.Wait()
	var total int
	var all tally
	for i := range n {
		total += counts[i]
		all.merge(fails[i])
	}
	return float64(total) / d.Seconds(), all
}

// tally counts failed calls, keeping the first error as an example.
type tally struct {
	n     int
	first error
}

func (t *tally) add(err error) {
	if t.n == 0 {
		t.first = err
	}
	t.n++
}

func (t *tally) merge(o tally) {
	if t.n == 0 {
		t.first = o.first
	}
	t.n += o.n
}

// describe names the failures of what, for Report.Failures.
func (t tally) describe(what string) string {
	return fmt.Sprintf("%s: %d calls failed, first: %v", what, t.n, t.first)
}
