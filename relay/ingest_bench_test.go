//go:build unix

package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// BenchmarkIngest measures durable ingest the way `toolbus bench relay`
// does (internal/bench ingest_N): N raw websocket publishers, each sending
// one pre-signed kind 1 event and waiting for its OK before the next, in
// members mode with the rate limits raised out of the way. One op is one
// accepted event. Signing runs under the pprof label side=setup and the
// publishers under side=client, so a CPU profile splits into what the
// relay spends per event and what the load generator does:
//
//	go test -tags libsecp256k1 -run '^$' -bench Ingest/16 -benchtime 20000x \
//	  -cpuprofile /tmp/cpu.out -o /tmp/relay.test ./relay/
//	go tool pprof -top -cum -tagignore side=client,setup /tmp/relay.test /tmp/cpu.out
//
// On a shared machine compare cpu-µs/event (the whole process, relay and
// client, from getrusage) as well as events/s: other processes' load
// lowers the rate much more than it raises the CPU cost.
func BenchmarkIngest(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchIngest(b, n) })
	}
}

func benchIngest(b *testing.B, publishers int) {
	keys := make([]*signer.Local, publishers)
	members := make([]string, publishers)
	for i := range keys {
		keys[i] = testutil.NewKey(b)
		members[i] = keys[i].PublicKey()
	}
	r := testutil.StartRelay(b, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, members...)
		c.Limits.EventsPerSecond, c.Limits.EventsBurst = 1e6, 1e6
		c.Limits.IPEventsPerSecond, c.Limits.IPEventsBurst = 1e6, 1e6
	})
	per := (b.N + publishers - 1) / publishers
	filler := strings.Repeat("lorem ipsum ", 12)
	msgs := make([][][]byte, publishers)
	ids := make([][]string, publishers)
	var wg sync.WaitGroup
	errs := make([]error, publishers)
	for p := range publishers {
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels("side", "setup"), func(ctx context.Context) {
				for i := range per {
					ev := nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Content: fmt.Sprintf("bench %d %d %s", p, i, filler)}
					if errs[p] = keys[p].SignEvent(ctx, &ev); errs[p] != nil {
						return
					}
					m, _ := json.Marshal([]any{"EVENT", ev})
					msgs[p] = append(msgs[p], m)
					ids[p] = append(ids[p], ev.ID)
				}
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	conns := make([]*websocket.Conn, publishers)
	for i := range conns {
		ws, _, err := websocket.DefaultDialer.Dial(r.URL, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		conns[i] = ws
	}
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for p := range publishers {
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
				errs[p] = publishAll(conns[p], msgs[p], ids[p])
			})
		})
	}
	wg.Wait()
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	events := float64(per * publishers)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	cpu := time.Duration(ru1.Utime.Nano() - ru0.Utime.Nano() + ru1.Stime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/events, "cpu-µs/event")
}

// publishAll sends each message and waits for its OK true.
func publishAll(ws *websocket.Conn, msgs [][]byte, ids []string) error {
	for i, m := range msgs {
		if err := ws.WriteMessage(websocket.TextMessage, m); err != nil {
			return err
		}
		for {
			ws.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, reply, err := ws.ReadMessage()
			if err != nil {
				return err
			}
			var arr []json.RawMessage
			if json.Unmarshal(reply, &arr) != nil || len(arr) < 3 || string(arr[0]) != `"OK"` {
				continue
			}
			if string(arr[1]) != `"`+ids[i]+`"` {
				return fmt.Errorf("OK for %s, want %s", arr[1], ids[i])
			}
			if string(arr[2]) != "true" {
				return fmt.Errorf("rejected: %s", reply)
			}
			break
		}
	}
	return nil
}
