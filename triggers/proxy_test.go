package triggers_test

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// relayProxy is a loopback TCP proxy in front of the relay (as its public
// URL, so AUTH through it names the right relay). A test marks the
// connections a runner opens, then breaks one of them at the moment it
// chooses, as a network failure would, while every other connection stays
// up.
type relayProxy struct {
	ln net.Listener

	mu      sync.Mutex
	target  string
	marking bool // connections accepted now are marked
	conns   map[net.Conn]struct{}
	cut     cutMode // what happens to the next large write of a marked connection
	cuts    int     // cuts made
}

// cutMode is how a marked connection is broken at its next large write
// (bigWrite bytes or more: an event, not a REQ, an AUTH or a ping).
type cutMode int

const (
	cutNone cutMode = iota
	// cutBefore eats the write and closes the connection: the relay never
	// sees the event.
	cutBefore
	// cutAfter passes the write on, then closes the connection when the
	// relay answers, before the answer gets through: the relay has the
	// event, the client never learns it.
	cutAfter
)

const bigWrite = 800

func newRelayProxy(t *testing.T) *relayProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &relayProxy{ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.dropAll() })
	return p
}

// Addr is the proxy's host:port.
func (p *relayProxy) Addr() string { return p.ln.Addr().String() }

func (p *relayProxy) setTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// mark makes the connections accepted from now on (on) marked.
func (p *relayProxy) mark(on bool) {
	p.mu.Lock()
	p.marking = on
	p.mu.Unlock()
}

// arm breaks the next large write of a marked connection the way m says.
func (p *relayProxy) arm(m cutMode) {
	p.mu.Lock()
	p.cut = m
	p.mu.Unlock()
}

// cutCount returns how many connections were broken.
func (p *relayProxy) cutCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// take returns the armed cut for a write of n bytes on a connection, and
// disarms it.
func (p *relayProxy) take(marked bool, n int) cutMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !marked || n < bigWrite || p.cut == cutNone {
		return cutNone
	}
	m := p.cut
	p.cut = cutNone
	p.cuts++
	return m
}

func (p *relayProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(client)
	}
}

func (p *relayProxy) serve(client net.Conn) {
	p.mu.Lock()
	target, marked := p.target, p.marking
	p.mu.Unlock()
	server, err := net.Dial("tcp", target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	var cutReply atomic.Bool
	closeBoth := func() { client.Close(); server.Close() }
	go func() { // client -> relay
		defer closeBoth()
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			if err != nil {
				return
			}
			switch p.take(marked, n) {
			case cutBefore:
				return
			case cutAfter:
				cutReply.Store(true)
			}
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	defer closeBoth() // relay -> client
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if err != nil || cutReply.Load() {
			return
		}
		if _, err := client.Write(buf[:n]); err != nil {
			return
		}
	}
}

// dropAll closes every proxied connection.
func (p *relayProxy) dropAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}
