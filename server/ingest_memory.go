package server

import (
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/query"
)

// ingestMemory is the allocator uploads decode into: the server's,
// counting the bytes uploads hold now. Buffers are known by their first
// byte, so a Free of memory it did not hand out changes nothing.
type ingestMemory struct {
	memory.Allocator
	held     atomic.Int64
	reserved atomic.Int64 // admitted batches not yet decoded (upload.admit)
	live     sync.Map     // *byte (first byte) -> int (size)
}

func (m *ingestMemory) Allocate(size int) []byte {
	b := m.Allocator.Allocate(size)
	m.track(b)
	return b
}

func (m *ingestMemory) Reallocate(size int, b []byte) []byte {
	m.untrack(b)
	nb := m.Allocator.Reallocate(size, b)
	m.track(nb)
	return nb
}

func (m *ingestMemory) Free(b []byte) {
	m.untrack(b)
	m.Allocator.Free(b)
}

func (m *ingestMemory) track(b []byte) {
	if cap(b) == 0 {
		return
	}
	m.live.Store(&b[:1][0], len(b))
	m.held.Add(int64(len(b)))
}

func (m *ingestMemory) untrack(b []byte) {
	if cap(b) == 0 {
		return
	}
	if n, ok := m.live.LoadAndDelete(&b[:1][0]); ok {
		m.held.Add(-int64(n.(int)))
	}
}

// returnAfter is the decoded size of an upload after which the server
// hands freed memory back to the OS: the Go runtime keeps freed heap for
// reuse, and RSS stayed at 4.3 GB with a 311 MB live heap after a
// bomb's batches were dropped.
const returnAfter = 64 << 20

var returningMemory atomic.Bool

// returnMemory runs debug.FreeOSMemory after an upload that decoded at
// least returnAfter bytes (it had ended, stored or refused): off the
// caller's goroutine, one at a time.
func returnMemory(decoded int64) {
	if decoded < returnAfter || !returningMemory.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer returningMemory.Store(false)
		debug.FreeOSMemory()
	}()
}

// memoryHeadroom is what the soft memory limit allows past the budgets
// it adds up: gRPC buffers, result encoding, sessions, the runtime.
const memoryHeadroom = 512 << 20

// MemoryLimit is the soft memory limit the server's budgets add up to:
// the cache budget (which uploads in progress count against too),
// QueryMemory for each of MaxQueries, and headroom. quiver serve gives it
// to debug.SetMemoryLimit unless GOMEMLIMIT is set, so the garbage
// collector works harder, and returns memory to the OS, as the process
// nears what its settings allow rather than at twice the live heap.
func (s *Server) MemoryLimit() int64 {
	qm := s.cfg.QueryMemory
	if qm == 0 {
		qm = query.DefaultMemoryLimit
	}
	// Saturating: --query-memory at the int64 maximum ("unlimited") times
	// the slots would wrap to a tiny limit and keep the collector running.
	queries := int64(s.cfg.MaxQueries)
	if queries > 0 && qm > (math.MaxInt64-memoryHeadroom)/queries {
		return math.MaxInt64
	}
	limit := s.cache.Budget() + qm*queries + memoryHeadroom
	if limit < 0 { // the budget itself near the maximum
		return math.MaxInt64
	}
	return limit
}
