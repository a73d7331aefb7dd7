package netlimit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// ErrRate is what Listen returns for a negative rate.
var ErrRate = errors.New("netlimit: bad rate")

const (
	// ChunkBytes is the most the proxy forwards at once. Small enough that
	// a 20 MB/s link is shaped in steps under a millisecond.
	ChunkBytes = 16 << 10
	// Burst is the most time's worth of bytes an idle link sends at once.
	Burst = 4 * time.Millisecond
	// dialTimeout bounds the connect to the target.
	dialTimeout = 10 * time.Second
)

// Stats counts the bytes the proxy has forwarded.
type Stats struct {
	Up   int64 // client to target
	Down int64 // target to client
}

// Proxy forwards TCP connections to a target, limiting bandwidth.
type Proxy struct {
	ln       net.Listener
	target   string
	up, down *bucket // nil: unlimited
	upN      atomic.Int64
	downN    atomic.Int64

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the accept loop and every connection's goroutines

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	once   sync.Once
	err    error
}

// Listen starts a proxy on addr (e.g. "127.0.0.1:0") to target, each
// direction limited to bytesPerSecond; 0 means no limit (the proxy then
// only counts). Close stops it.
func Listen(addr, target string, bytesPerSecond int64) (*Proxy, error) {
	if bytesPerSecond < 0 {
		return nil, fmt.Errorf("%w: %d bytes per second", ErrRate, bytesPerSecond)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("netlimit: %w", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	if bytesPerSecond > 0 {
		p.up, p.down = newBucket(bytesPerSecond, Burst), newBucket(bytesPerSecond, Burst)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to instead of the target.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// Stats returns the bytes forwarded so far, each way.
func (p *Proxy) Stats() Stats { return Stats{Up: p.upN.Load(), Down: p.downN.Load()} }

// Close stops accepting, cuts every connection and returns once every
// goroutine of the proxy has ended. It may be called more than once.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.err = p.ln.Close()
		p.mu.Lock()
		p.closed = true
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p.err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed; anything else would repeat forever
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve forwards one connection both ways until both ways have ended.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	ctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	server, err := (&net.Dialer{}).DialContext(ctx, "tcp", p.target)
	cancel()
	if err != nil {
		client.Close() // the client sees the connection end, as if refused
		return
	}
	if !p.track(client, server) {
		return
	}
	defer p.untrack(client, server)
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() { defer pipes.Done(); p.pipe(server, client, p.up, &p.upN) }()
	go func() { defer pipes.Done(); p.pipe(client, server, p.down, &p.downN) }()
	pipes.Wait()
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.conns, c)
	}
}

// pipe copies src to dst through the bucket b. At src's EOF it half-closes
// dst, so the far side sees the end while the other way goes on; on any
// other failure it closes both, which ends the other way too.
func (p *Proxy) pipe(dst, src net.Conn, b *bucket, count *atomic.Int64) {
	buf := make([]byte, ChunkBytes)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait(b, n) {
				return // closing
			}
			// Counted before the write: once the far side has the bytes,
			// Stats must include them.
			count.Add(int64(n))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				dst.Close()
				src.Close()
				return
			}
		}
		if errors.Is(err, io.EOF) {
			if tc, ok := dst.(*net.TCPConn); ok && tc.CloseWrite() == nil {
				return
			}
			dst.Close()
			return
		}
		if err != nil {
			dst.Close()
			src.Close()
			return
		}
	}
}

// wait holds n bytes until the link has room for them; false if the proxy
// closed meanwhile.
func (p *Proxy) wait(b *bucket, n int) bool {
	if b == nil {
		return true
	}
	d := b.reserve(n, time.Now())
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}
