package gitbridge_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
)

// Request bodies over MaxRequestBytes are refused, declared or not.
func TestRequestCap(t *testing.T) {
	h := newHarness(t, func(o *gitbridge.Options) { o.MaxRequestBytes = 64 << 10 })
	work := h.seed(h.owner, "app")
	noise := make([]byte, 256<<10)
	rand.Read(noise) // incompressible, so the pack stays over the cap
	if err := os.WriteFile(filepath.Join(work, "big"), noise, 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustGit(nil, work, "add", "big")
	h.mustGit(nil, work, "commit", "-q", "-m", "big")
	out, err := h.git(h.owner, work, "push", h.url(h.owner, "app"), "main")
	if err == nil || !strings.Contains(out, "413") {
		t.Fatalf("oversized push: err=%v\n%s", err, out)
	}
}

// When every git process slot is taken, a request waits QueueWait and then
// gets 503 with Retry-After, instead of starting yet another git.
func TestProcessCap(t *testing.T) {
	h := newHarness(t, func(o *gitbridge.Options) {
		o.MaxGitProcesses = 1
		o.QueueWait = 100 * time.Millisecond
	})
	h.seed(h.owner, "app")
	auth := "Nostr " + token(t, h.member, h.url(h.owner, "app"), time.Now(), 27235)
	// A POST whose body never ends holds the only slot: git waits on stdin.
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest(http.MethodPost, h.url(h.owner, "app")+"/git-upload-pack", pr)
	req.Header.Set("Authorization", auth)
	go func() {
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	path := "/git/" + h.owner.NPub() + "/app.git/info/refs?service=git-upload-pack"
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, _ := h.get(path, auth)
		if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never refused while busy; last status %d", res.StatusCode)
		}
	}
	pw.Close()
	for time.Now().Before(deadline) {
		if res, _ := h.get(path, auth); res.StatusCode == 200 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("slot not released after the request ended")
}

// Regression: a token with a payload tag must not make the bridge read a
// whole pack into memory to hash it; beyond nip98's 1 MiB it is a 401.
func TestPayloadTagBodyBounded(t *testing.T) {
	h := newHarness(t, nil)
	h.seed(h.owner, "app")
	data := make([]byte, 4<<20)
	sum := sha256.Sum256(data) // a matching payload: only the size may fail it
	ev := nostr.Event{Kind: 27235, CreatedAt: nostr.Now(), Tags: nostr.Tags{
		{"u", h.url(h.owner, "app")}, {"method", "POST"}, {"payload", hex.EncodeToString(sum[:])}}}
	if err := h.member.SignEvent(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ev)
	req, _ := http.NewRequest(http.MethodPost, h.url(h.owner, "app")+"/git-upload-pack", bytes.NewReader(data))
	req.Header.Set("Authorization", "Nostr "+base64.StdEncoding.EncodeToString(raw))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", res.StatusCode)
	}
}
