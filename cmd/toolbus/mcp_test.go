package main_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"toolbus/internal/testutil"
	"toolbus/nip98"
)

// `toolbus mcp --listen` on an address the network can reach is refused
// unless --nip98 guards it: the Host check stops a web page, not a network
// client, which can send Host: 127.0.0.1:PORT. The refusal comes before
// the relay is dialled (there is none here).
func TestMCPListenRefusesNonLoopbackWithoutNIP98(t *testing.T) {
	keyFile := keyFileFor(t, testutil.NewKey(t))
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		cmd := exec.Command(testutil.Binary(t, "toolbus"), "mcp", "--relay", "ws://127.0.0.1:1",
			"--key-file", keyFile, "--listen", addr)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Fatalf("--listen %s without --nip98: want exit 2, got %v (stdout %q)", addr, err, stdout.String())
		}
		if msg := stderr.String(); !strings.Contains(msg, "not a loopback address") || !strings.Contains(msg, "--nip98") {
			t.Fatalf("--listen %s: the error must say why and name --nip98, got %q", addr, msg)
		}
	}
}

// The same addresses are served with --nip98 (and the token is demanded),
// and loopback ones are served without it.
func TestMCPListenServesLoopbackOrWithNIP98(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	keyFile := keyFileFor(t, r.Admin)
	for _, c := range []struct {
		listen string
		nip98  bool
		want   int // status of an unauthenticated tools/list
	}{
		{"0.0.0.0:0", true, http.StatusUnauthorized},
		{"127.0.0.1:0", false, http.StatusOK},
		{"localhost:0", false, http.StatusOK},
	} {
		args := []string{"mcp", "--relay", r.URL, "--key-file", keyFile, "--listen", c.listen}
		if c.nip98 {
			args = append(args, "--nip98")
		}
		url := startMCPListener(t, args...)
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Fatalf("%v: unauthenticated tools/list got %d, want %d", args, resp.StatusCode, c.want)
		}
	}
}

// startMCPListener runs `toolbus args...` and returns the loopback URL of
// the endpoint it says it listens on.
func startMCPListener(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t, "toolbus"), args...)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "toolbus mcp listening on http://"); ok {
				addr <- a
				return
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("%v did not listen: %s", args, stderr.String())
		}
		_, port, _ := net.SplitHostPort(a)
		return "http://127.0.0.1:" + port
	case <-time.After(30 * time.Second):
		t.Fatalf("%v: no listening line", args)
	}
	return ""
}

// --public-url names the endpoint as clients reach it (a host name in
// front of 0.0.0.0): its host passes the Host check and NIP-98 tokens must
// name it; tokens for the listen address and other hosts are refused, and
// the flag is refused where no token is checked.
func TestMCPListenPublicURL(t *testing.T) {
	r := testutil.StartRelay(t, nil)
	keyFile := keyFileFor(t, r.Admin)
	_, port, _ := net.SplitHostPort(testutil.FreeAddr(t))
	public := "http://agent.test:" + port + "/"
	base := []string{"mcp", "--relay", r.URL, "--key-file", keyFile}
	if _, code := runCLI(t, append(base, "--listen", "127.0.0.1:0", "--public-url", public)...); code != 2 {
		t.Fatalf("--public-url without --nip98: exit %d, want 2", code)
	}
	if _, code := runCLI(t, append(base, "--listen", "0.0.0.0:0", "--nip98", "--public-url", "agent.test")...); code != 2 {
		t.Fatalf("--public-url without a scheme: exit %d, want 2", code)
	}
	local := startMCPListener(t, append(base, "--listen", "0.0.0.0:"+port, "--nip98", "--public-url", public)...)
	for _, c := range []struct {
		host, tokenURL string
		want           int
	}{
		{"agent.test:" + port, public, http.StatusOK},
		{"agent.test:" + port, local + "/", http.StatusUnauthorized},
		{"evil.test:" + port, public, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", local, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Host = c.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		auth, err := nip98.BuildHeader(context.Background(), r.Admin, c.tokenURL, "POST", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %s, token for %s: %d %s, want %d", c.host, c.tokenURL, resp.StatusCode, body, c.want)
		}
	}
}
