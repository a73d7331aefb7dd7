// Package servertest runs a real quiver server on a loopback port for the
// tests of packages outside server (client, cmd/quiver, interop): one
// home for starting it, filling its cache and checking at the end that
// the server and the cache gave back every byte. (server's own tests
// cannot import it: they are inside the package it imports.)
package servertest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/server"
)

// Start runs a server with cfg (Listen, Alloc and Logger are set here)
// over a cache of budget bytes, which fill, when not nil, fills before
// the server serves. At cleanup the server shuts down, every table is
// dropped, and the checked allocator under both must be empty.
func Start(t testing.TB, cfg server.Config, budget int64, fill func(c *cache.Cache, mem memory.Allocator)) *server.Server {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := cache.New(cache.Options{Alloc: mem, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if fill != nil {
		fill(c, mem)
	}
	cfg.Listen, cfg.Alloc = "127.0.0.1:0", mem
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.New(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		s.Shutdown(context.Background())
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		for _, name := range c.Tables() {
			c.Drop(name)
		}
		// A stream ends on the server a moment after the client has
		// seen its end: wait for its memory to come back.
		deadline := time.Now().Add(5 * time.Second)
		for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	})
	return s
}
