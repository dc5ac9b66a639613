package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	readyTimeout = 15 * time.Second
	stopTimeout  = 25 * time.Second // toolbus allows itself 20 s to drain
)

// proc is a relay running as a child process, on its own data directory.
type proc struct {
	cmd    *exec.Cmd
	dir    string
	url    string
	logs   *tail
	exited chan struct{}
	err    error // how the process ended; read after exited is closed
}

// startProc runs exe with args, which must make it listen on addr, and
// waits until it accepts websocket connections. dir is removed by stop.
func startProc(ctx context.Context, exe string, args []string, addr, dir string) (*proc, error) {
	cmd := exec.Command(exe, args...)
	logs := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = logs, logs
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, dir: dir, url: "ws://" + addr, logs: logs, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	if err := p.waitReady(ctx); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// waitReady polls with websocket handshakes: a listening socket alone does
// not mean the relay behind it is ready.
func (p *proc) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		c, err := dial(ctx, p.url)
		if err == nil {
			c.close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("relay not accepting websockets after %s: %v\n%s", readyTimeout, err, p.logs)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("relay exited before accepting connections (%v):\n%s", p.err, p.logs)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM, waits for a clean exit (killing the process if it
// does not come) and removes the data directory.
func (p *proc) stop() error {
	defer os.RemoveAll(p.dir)
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("relay did not stop within %s of SIGTERM:\n%s", stopTimeout, p.logs)
	}
	if p.err != nil {
		return fmt.Errorf("relay exited with %v:\n%s", p.err, p.logs)
	}
	return nil
}

// rssMB reads the process's resident set size (VmRSS) in MB of 2^20 bytes.
func (p *proc) rssMB() (float64, error) {
	return readRSS(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
}

func readRSS(statusFile string) (float64, error) {
	f, err := os.Open(statusFile)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmRSS in " + statusFile)
}

// freeAddr returns a loopback address with a port free right now. Another
// process could take it before the relay binds it; on a benchmark machine
// that is rare enough to report rather than retry.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// tail keeps the last max bytes written to it: a relay's log, kept to
// explain a failure without holding an unbounded log in memory.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept log.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lines returns the non-empty lines of the kept log.
func (t *tail) lines() []string {
	var out []string
	for _, l := range bytes.Split([]byte(t.String()), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}
