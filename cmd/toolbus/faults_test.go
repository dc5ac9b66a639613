package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/internal/testutil"
	"toolbus/signer"
)

// pipelinePublisher sends events without waiting for each OK (so the
// relay's group commit batches them) and records the ids that got OK true.
func pipelinePublisher(url string, key *signer.Local, stop <-chan struct{}, acked func(string)) {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var ok []any
			if json.Unmarshal(data, &ok) == nil && len(ok) >= 3 && ok[0] == "OK" && ok[2] == true {
				acked(ok[1].(string))
			}
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		ev := nostr.Event{Kind: 1, Content: fmt.Sprint("pipelined ", i), CreatedAt: nostr.Now()}
		key.SignEvent(context.Background(), &ev)
		msg, _ := json.Marshal([]any{"EVENT", ev})
		ws.SetWriteDeadline(time.Now().Add(time.Second))
		if ws.WriteMessage(websocket.TextMessage, msg) != nil {
			return
		}
	}
}

// kill -9 during ingest: every event that got OK true is there after a
// restart (OK true is sent only after the batch's sync).
func TestKill9DuringIngestLosesNoAcknowledgedEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	member := testutil.NewKey(t)
	dataDir := t.TempDir()
	cmd, url := startRelayProcess(t, dataDir, member.PublicKey())
	var mu sync.Mutex
	acked := map[string]bool{}
	record := func(id string) { mu.Lock(); acked[id] = true; mu.Unlock() }
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); pipelinePublisher(url, member, stop, record) }()
	}
	time.Sleep(800 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	close(stop)
	wg.Wait()
	if len(acked) < 50 {
		t.Fatalf("only %d events acknowledged before the kill", len(acked))
	}
	_, url = startRelayProcess(t, dataDir, member.PublicKey())
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	missing := missingIDs(t, url, member, ids)
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged events lost after kill -9, e.g. %s", len(missing), len(ids), missing[0])
	}
	t.Logf("%d acknowledged events all present after kill -9", len(ids))
}

// missingIDs returns the ids the relay does not have.
func missingIDs(t *testing.T, url string, key *signer.Local, ids []string) []string {
	t.Helper()
	c := testutil.Connect(t, url, key)
	found := map[string]bool{}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		evs, err := c.QuerySync(ctx, nostr.Filter{IDs: chunk, Limit: len(chunk)})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			found[ev.ID] = true
		}
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	return missing
}

// mountTmpfs mounts a tmpfs of size at dir, or skips when the machine
// does not allow it (not root, no mount namespace).
func mountTmpfs(t *testing.T, size string, readOnly bool) string {
	t.Helper()
	dir := t.TempDir()
	opts := "size=" + size
	if readOnly {
		opts += ",ro"
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); the disk-full and read-only tests need one", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// A full disk: the relay refuses new events with a clear reason instead of
// crashing (LMDB with MDB_WRITEMAP would die of SIGBUS), keeps serving
// reads, and keeps every acknowledged event.
func TestDiskFullIsAClearRefusal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dataDir := mountTmpfs(t, "80m", false)
	member := testutil.NewKey(t)
	cmd, url := startRelayProcess(t, dataDir, member.PublicKey())
	raw := testutil.DialRaw(t, url)
	big := strings.Repeat("x", 60_000)
	var acked []string
	refused := ""
	for i := 0; i < 2000 && refused == ""; i++ {
		ev := testutil.Signed(t, member, 1, fmt.Sprint(i, big))
		raw.SendJSON([]any{"EVENT", ev})
		m := raw.Expect("OK", "")
		var reason string
		json.Unmarshal(m[3], &reason)
		if string(m[2]) == "true" {
			acked = append(acked, ev.ID)
		} else {
			refused = reason
		}
	}
	if !strings.Contains(refused, "disk is full") {
		t.Fatalf("want a disk-full refusal after filling the disk, got %q after %d events", refused, len(acked))
	}
	if cmd.ProcessState != nil {
		t.Fatal("relay exited")
	}
	if missing := missingIDs(t, url, member, acked); len(missing) > 0 {
		t.Fatalf("%d acknowledged events unreadable on a full disk", len(missing))
	}
}

// A read-only data dir: the relay does not start, and says why.
func TestReadOnlyDataDirIsAClearError(t *testing.T) {
	dataDir := mountTmpfs(t, "8m", true)
	out, err := exec.Command(testutil.Binary(t, "toolbus"), "relay", "--data-dir", dataDir,
		"--listen", testutil.FreeAddr(t)).CombinedOutput()
	if err == nil {
		t.Fatal("relay started on a read-only data dir")
	}
	if !strings.Contains(string(out), "read-only file system") {
		t.Fatalf("error does not say why:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "events")); err == nil {
		t.Fatal("something was created on a read-only mount")
	}
}

const syscallTERM = syscall.SIGTERM

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
