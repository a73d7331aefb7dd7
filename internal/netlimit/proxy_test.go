package netlimit

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"
)

// server is a test target: it runs handle on each connection and, on
// stop, closes its listener and waits for its goroutines.
type server struct {
	ln net.Listener
	wg sync.WaitGroup
}

func newServer(t *testing.T, handle func(net.Conn)) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() { defer s.wg.Done(); defer c.Close(); handle(c) }()
		}
	}()
	return s
}

func (s *server) addr() string { return s.ln.Addr().String() }
func (s *server) stop()        { s.ln.Close(); s.wg.Wait() }

// echo copies what it reads back until EOF.
func echo(c net.Conn) { io.Copy(c, c) }

func listen(t *testing.T, target string, rate int64) *Proxy {
	t.Helper()
	p, err := Listen("127.0.0.1:0", target, rate)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func dial(t *testing.T, p *Proxy) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// noLeaks fails if goroutines started after it was called are still
// running when the test ends (after the test's own cleanups).
func noLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
	})
}

// TestEcho: both directions carry the bytes unchanged and count them.
func TestEcho(t *testing.T) {
	noLeaks(t)
	for _, rate := range []int64{0, 50_000_000} {
		s := newServer(t, echo)
		p := listen(t, s.addr(), rate)
		c := dial(t, p)
		want := payload(1 << 20)
		go func() { c.Write(want); c.CloseWrite() }()
		got, err := io.ReadAll(c)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("rate %d: echoed %d bytes (%v), want %d equal", rate, len(got), err, len(want))
		}
		c.Close()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if st := p.Stats(); st.Up != int64(len(want)) || st.Down != int64(len(want)) {
			t.Errorf("rate %d: stats %+v, want %d each way", rate, st, len(want))
		}
		s.stop()
	}
}

// TestRate: 4 MB at 20 MB/s takes 0.2 s less one burst, each way. The
// bounds are loose so a loaded machine cannot fail them: a limiter that
// does not limit takes milliseconds on loopback.
func TestRate(t *testing.T) {
	noLeaks(t)
	const rate, size = 20_000_000, 4_000_000
	data := payload(size)
	check := func(what string, d time.Duration) {
		t.Helper()
		if d < 150*time.Millisecond || d > 20*time.Second {
			t.Errorf("%s: %d bytes at %d B/s took %v, want about 0.2 s", what, size, rate, d)
		}
	}

	// Down: the target sends, the client reads.
	s := newServer(t, func(c net.Conn) { c.Write(data) })
	p := listen(t, s.addr(), rate)
	c := dial(t, p)
	start := time.Now()
	n, _ := io.Copy(io.Discard, c)
	check("down", time.Since(start))
	if n != size || p.Stats().Down != size {
		t.Errorf("down: read %d, counted %d, want %d", n, p.Stats().Down, size)
	}
	c.Close()
	p.Close()
	s.stop()

	// Up: the client sends, the target counts and answers when done.
	s = newServer(t, func(c net.Conn) {
		n, _ := io.Copy(io.Discard, c)
		c.Write([]byte{byte(n % 251)})
	})
	p = listen(t, s.addr(), rate)
	c = dial(t, p)
	start = time.Now()
	c.Write(data)
	c.CloseWrite()
	io.ReadAll(c)
	check("up", time.Since(start))
	if p.Stats().Up != size {
		t.Errorf("up: counted %d, want %d", p.Stats().Up, size)
	}
	c.Close()
	p.Close()
	s.stop()
}

// TestSharedLink: the rate is the link's, not each connection's: two
// connections of 2 MB each at 20 MB/s still take about 0.2 s together.
func TestSharedLink(t *testing.T) {
	noLeaks(t)
	const rate, size = 20_000_000, 2_000_000
	data := payload(size)
	s := newServer(t, func(c net.Conn) { c.Write(data) })
	p := listen(t, s.addr(), rate)
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		c := dial(t, p)
		wg.Add(1)
		go func() { defer wg.Done(); io.Copy(io.Discard, c); c.Close() }()
	}
	wg.Wait()
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("2 × %d bytes at %d B/s took %v, want about 0.2 s", size, rate, d)
	}
	if got := p.Stats().Down; got != 2*size {
		t.Errorf("counted %d, want %d", got, 2*size)
	}
	p.Close()
	s.stop()
}

// TestCloseMidStream: Close cuts a transfer that the rate holds back and
// leaves no goroutine behind; the client sees its connection end.
func TestCloseMidStream(t *testing.T) {
	noLeaks(t)
	s := newServer(t, func(c net.Conn) { c.Write(payload(10_000_000)) })
	defer s.stop()
	p := listen(t, s.addr(), 1_000_000) // 10 s of data
	c := dial(t, p)
	defer c.Close()
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, c); done <- err }()
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil { // a second Close is harmless
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the client's connection did not end after Close")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if _, err := net.Dial("tcp", p.Addr().String()); err == nil {
		t.Error("the proxy still accepts after Close")
	}
}

// TestTargetDown: a connection to a target that refuses ends at once.
func TestTargetDown(t *testing.T) {
	noLeaks(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	target := ln.Addr().String()
	ln.Close()
	p := listen(t, target, 0)
	defer p.Close()
	c := dial(t, p)
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("read from a proxied refused connection: %v, want EOF", err)
	}
}

func TestBadRate(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", "127.0.0.1:1", -1); !errors.Is(err, ErrRate) {
		t.Errorf("negative rate: %v", err)
	}
	if _, err := Listen("no such address", "127.0.0.1:1", 0); err == nil {
		t.Error("listen on a bad address succeeded")
	}
}

func TestBucket(t *testing.T) {
	b := newBucket(1000, 10*time.Millisecond)
	now := time.Now()
	// The first 10 ms worth (10 bytes) goes at once, then 1 ms a byte.
	if d := b.reserve(10, now); d > 0 {
		t.Errorf("burst waited %v", d)
	}
	if d := b.reserve(100, now); d != 100*time.Millisecond {
		t.Errorf("100 bytes past the burst wait %v, want 100ms", d)
	}
	// After a long idle spell, still only one burst is free.
	later := now.Add(time.Hour)
	if d := b.reserve(20, later); d != 10*time.Millisecond {
		t.Errorf("after idling: wait %v, want 10ms", d)
	}
}
