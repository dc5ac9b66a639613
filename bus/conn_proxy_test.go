package bus

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// connProxy is a loopback TCP proxy in front of the relay, so tests can cut
// connections while the relay (and its address) stays the same.
type connProxy struct {
	ln     net.Listener
	target string
	// chunks counts reads forwarded from clients to the relay, so a test
	// can tell that a message has at least started on its way.
	chunks atomic.Int64

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	refuse  bool          // close new connections at once
	swallow bool          // eat the next client write, then close that connection
	hold    chan struct{} // if set, hold relay->client data after the HTTP headers until closed
}

func newConnProxy(t *testing.T) *connProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connProxy{ln: ln, conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.DropAll() })
	return p
}

// Addr is the proxy's host:port.
func (p *connProxy) Addr() string { return p.ln.Addr().String() }

func (p *connProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(client)
	}
}

func (p *connProxy) serve(client net.Conn) {
	p.mu.Lock()
	refuse, hold, target := p.refuse, p.hold, p.target
	p.mu.Unlock()
	if refuse {
		client.Close()
		return
	}
	server, err := net.Dial("tcp", target)
	if err != nil {
		client.Close()
		return
	}
	p.track(client, server)
	go p.clientToServer(client, server)
	p.serverToClient(server, client, hold)
}

func (p *connProxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}

func (p *connProxy) clientToServer(client, server net.Conn) {
	defer client.Close()
	defer server.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		swallow := p.swallow
		p.swallow = false
		p.mu.Unlock()
		if swallow {
			return // the write never reaches the relay; both sides close
		}
		if _, err := server.Write(buf[:n]); err != nil {
			return
		}
		p.chunks.Add(1)
	}
}

// serverToClient forwards relay data; with hold it passes the HTTP upgrade
// response (so the websocket handshake completes) and keeps the rest
// until hold is closed.
func (p *connProxy) serverToClient(server, client net.Conn, hold chan struct{}) {
	defer client.Close()
	defer server.Close()
	if hold != nil {
		var head []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(head, []byte("\r\n\r\n")) {
			n, err := server.Read(buf)
			if err != nil {
				return
			}
			head = append(head, buf[:n]...)
		}
		end := bytes.Index(head, []byte("\r\n\r\n")) + 4
		if _, err := client.Write(head[:end]); err != nil {
			return
		}
		<-hold
		if _, err := client.Write(head[end:]); err != nil {
			return
		}
	}
	io.Copy(client, server)
}

// DropAll closes every proxied connection, as a network failure would.
func (p *connProxy) DropAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}

// SetRefuse makes the proxy close new connections at once (relay down).
func (p *connProxy) SetRefuse(v bool) {
	p.mu.Lock()
	p.refuse = v
	p.mu.Unlock()
}

// SwallowNext drops the next chunk any client sends and closes that
// connection, so the relay never sees it.
func (p *connProxy) SwallowNext() {
	p.mu.Lock()
	p.swallow = true
	p.mu.Unlock()
}

// HoldNew holds relay->client traffic of new connections, after the
// handshake, until the returned release function is called.
func (p *connProxy) HoldNew() (release func()) {
	ch := make(chan struct{})
	p.mu.Lock()
	p.hold = ch
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.hold = nil
		p.mu.Unlock()
		close(ch)
	}
}
