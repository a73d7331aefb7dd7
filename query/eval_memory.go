package query

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/bufs"
)

// evalMem is the allocator the expressions of one batch allocate from
// (a filter's predicate, a projection's columns, an aggregate's keys and
// arguments). What they allocate counts in the query's memory tracker
// while the batch is evaluated, so Stats.PeakMemory and the other
// operators see it; and since it implements expr.Reserver, an expression
// about to allocate more than the query's limit for one batch (a long
// string literal repeated on every row) fails with ErrMemory before it
// allocates. Once the batch is done (close) its outputs belong to the
// operator above, which accounts them if it keeps them (a sort does), so
// they stop counting here.
type evalMem struct {
	memory.Allocator
	mt *memTracker

	mu     sync.Mutex
	live   int64 // bytes allocated through evalMem and not yet freed, until close
	closed bool
}

// evalMem returns the allocator for evaluating one batch; the caller
// closes it when the batch's results are handed on.
func (rt *runtime) evalMem() *evalMem {
	return &evalMem{Allocator: rt.mem, mt: rt.mt}
}

func (m *evalMem) Allocate(size int) []byte {
	b := m.Allocator.Allocate(size)
	m.add(int64(len(b)))
	return b
}

// AllocateDirty passes bufs.NewDirty's request on when the allocator
// below can leave the bytes uncleared.
func (m *evalMem) AllocateDirty(size int) []byte {
	var b []byte
	if d, ok := m.Allocator.(bufs.DirtyAllocator); ok {
		b = d.AllocateDirty(size)
	} else {
		b = m.Allocator.Allocate(size)
	}
	m.add(int64(len(b)))
	return b
}

func (m *evalMem) Reallocate(size int, b []byte) []byte {
	old := len(b)
	b = m.Allocator.Reallocate(size, b)
	m.add(int64(len(b) - old))
	return b
}

func (m *evalMem) Free(b []byte) {
	m.add(-int64(len(b)))
	m.Allocator.Free(b)
}

// add counts delta bytes, unless the batch is done.
func (m *evalMem) add(delta int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.live += delta
	m.mt.charge(delta)
}

// Reserve implements expr.Reserver: one batch's expressions may hold at
// most the query's memory limit. The bound is on the batch alone, not on
// what sorts and aggregates hold besides, so that those can still spill
// to make room.
func (m *evalMem) Reserve(n int64, e fmt.Stringer) error {
	m.mu.Lock()
	live := m.live
	m.mu.Unlock()
	if m.mt.limit <= 0 || live+n <= m.mt.limit {
		return nil
	}
	what := []rune(e.String())
	if len(what) > 60 {
		what = append(what[:60], '…')
	}
	return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s needs %d bytes for one batch, past the query's %d-byte memory limit (raise the limit, or add a LIMIT)", string(what), n, m.mt.limit)}
}

// close stops counting: what is still allocated is the batch's results.
func (m *evalMem) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mt.charge(-m.live)
	m.live, m.closed = 0, true
}
