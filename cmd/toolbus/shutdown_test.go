package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
)

// startRelayProcess runs `toolbus relay` on dataDir with member as the only
// workspace member and returns the process and its websocket URL.
func startRelayProcess(t *testing.T, dataDir, member string) (*exec.Cmd, string) {
	t.Helper()
	cfg := fmt.Sprintf("[workspace]\nmembers = [%q]\n[limits]\nevents_per_second = 100000.0\nevents_burst = 100000\nip_events_per_second = 100000.0\nip_events_burst = 100000\n", member)
	return startRelayProcessWith(t, dataDir, cfg)
}

// startRelayWithConfig runs `toolbus relay` with the given TOML on a fresh
// data dir and returns its websocket URL.
func startRelayWithConfig(t *testing.T, toml string) string {
	t.Helper()
	_, url := startRelayProcessWith(t, t.TempDir(), toml)
	return url
}

func startRelayProcessWith(t *testing.T, dataDir, cfg string) (*exec.Cmd, string) {
	t.Helper()
	addr := testutil.FreeAddr(t)
	cfgPath := filepath.Join(t.TempDir(), "toolbus.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "relay", "--config", cfgPath, "--data-dir", dataDir, "--listen", addr)
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "ws://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := nostr.RelayConnect(ctx, url)
		cancel()
		if err == nil {
			c.Close()
			return cmd, url
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("relay process did not come up")
	return nil, ""
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Logf("%s", p); return len(p), nil }

// Publish continuously, SIGTERM the relay, restart it: every event that got
// OK true must be there.
func TestGracefulShutdownLosesNoAcknowledgedEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	member := testutil.NewKey(t)
	dataDir := t.TempDir()
	cmd, url := startRelayProcess(t, dataDir, member.PublicKey())

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// go-nostr's Publish reports success when the connection drops
			// before an OK arrives, so count only explicit OK true here.
			ws, _, err := websocket.DefaultDialer.Dial(url, nil)
			if err != nil {
				return
			}
			defer ws.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ev := testutil.Signed(t, member, 1, fmt.Sprintf("w%d-%d", w, i))
				if !publishRaw(ws, ev) {
					return
				}
				mu.Lock()
				acked = append(acked, ev.ID)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("relay exited with %v after SIGTERM", err)
	}
	close(stop)
	wg.Wait()
	if len(acked) < 10 {
		t.Fatalf("only %d events acknowledged before shutdown", len(acked))
	}

	_, url = startRelayProcess(t, dataDir, member.PublicKey())
	if missing := missingIDs(t, url, member, acked); len(missing) > 0 {
		t.Fatalf("%d of %d events got OK true but are missing after restart, first %s", len(missing), len(acked), missing[0])
	}
	t.Logf("%d acknowledged events all present after SIGTERM and restart", len(acked))
}

// publishRaw sends ev and reports whether the relay answered OK true.
func publishRaw(ws *websocket.Conn, ev nostr.Event) bool {
	msg, _ := json.Marshal([]any{"EVENT", ev})
	ws.SetWriteDeadline(time.Now().Add(3 * time.Second))
	if ws.WriteMessage(websocket.TextMessage, msg) != nil {
		return false
	}
	for {
		ws.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			return false
		}
		var ok []any
		if json.Unmarshal(data, &ok) == nil && len(ok) >= 3 && ok[0] == "OK" && ok[1] == ev.ID {
			return ok[2] == true
		}
	}
}
