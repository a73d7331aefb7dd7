package cache

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// recycler is the default allocator of a cache's scans: a memory.Allocator
// over Go memory that keeps freed buffers, by power-of-two size class, for
// the next allocation of that class.
//
// Why: a scan allocates the same buffer sizes batch after batch, and a
// reader that releases each batch before asking for the next hands them
// straight back. With memory.GoAllocator every batch costs fresh pages
// (a page fault and the kernel's zeroing each 4 KiB) and the runtime's
// zeroing; profiles of a Comet-relation scan showed that at 15% of the
// time. A recycled buffer is still in cache. It is cleared on reuse, so
// callers see zeroed memory exactly as from GoAllocator.
//
// Pools are sync.Pools: the garbage collector empties them, so a burst of
// scans does not pin memory.
//
// Taking a buffer back needs its whole size class from the shorter slice
// handed out (rawmem.Recap); the purego build cannot, so there the
// recycler pools only buffers asked for at exactly a class size (a power
// of two) and is otherwise Go's allocator with 64-byte alignment.
type recycler struct {
	classes [maxClass + 1]sync.Pool // of *[]byte with cap 1<<class
	// live maps the first-byte address of every buffer handed out and
	// not yet freed to its size class. Free pools only those: arrow-go sometimes wraps a
	// part of another live buffer in a Buffer of this allocator (harmless
	// with Go's allocator, whose Free does nothing), and pooling that
	// part would hand live memory to the next Allocate.
	live liveBuffers
}

// liveBuffers is the recycler's set of buffers handed out: maps under
// mutexes, sharded by address. It was a sync.Map, whose every Store
// allocates a node: 4–5% of join queries' profiles (BenchmarkRecycler:
// 6 allocations per allocate-grow-free, now 2, at twice the speed
// for 1 KiB buffers).
type liveBuffers struct {
	shards [liveShards]liveShard
}

const liveShards = 32

type liveShard struct {
	mu sync.Mutex
	m  map[uintptr]uint8 // address -> size class
	_  [40]byte          // a shard per cache line: no false sharing
}

func (l *liveBuffers) shard(addr uintptr) *liveShard {
	return &l.shards[(uint64(addr)>>6*0x9e3779b97f4a7c15)>>(64-5)] // 64-5: log2(liveShards)
}

func (l *liveBuffers) store(addr uintptr, class int) {
	s := l.shard(addr)
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[uintptr]uint8)
	}
	s.m[addr] = uint8(class)
	s.mu.Unlock()
}

func (l *liveBuffers) load(addr uintptr) (int, bool) {
	s := l.shard(addr)
	s.mu.Lock()
	c, ok := s.m[addr]
	s.mu.Unlock()
	return int(c), ok
}

func (l *liveBuffers) delete(addr uintptr) {
	s := l.shard(addr)
	s.mu.Lock()
	delete(s.m, addr)
	s.mu.Unlock()
}

const (
	minClass  = 6  // 64 bytes
	maxClass  = 26 // 64 MiB; larger buffers come and go from Go memory
	alignment = 64
)

var defaultRecycler = &recycler{}

// RecyclingAllocator returns the allocator scans use when Options.Alloc is
// nil, for readers of other formats that should be measured on equal terms.
func RecyclingAllocator() memory.Allocator { return defaultRecycler }

var _ memory.Allocator = (*recycler)(nil)

func classOf(size int) int {
	if size <= 1<<minClass {
		return minClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate returns size zeroed bytes, 64-byte aligned, with capacity
// exactly size as Go's allocator gives: arrow-go treats a buffer's
// capacity as writable, so handing out the rest of a size class would let
// a builder write there and a later Reallocate clear it.
func (r *recycler) Allocate(size int) []byte {
	if size == 0 {
		return []byte{}
	}
	c := classOf(size)
	if c > maxClass {
		return aligned(size, size)
	}
	var full []byte
	if p, ok := r.classes[c].Get().(*[]byte); ok {
		full = *p
		clear(full[:size])
	} else {
		full = aligned(1<<c, 1<<c)
	}
	r.live.store(rawmem.Addr(full), c)
	return full[:size:size]
}

// AllocateDirty is Allocate without the clearing, for a decoder or kernel
// that writes every byte it asks for (bufs.NewDirty): clearing a recycled
// buffer that is overwritten at once cost a join-heavy query a tenth of
// its time. The bytes may be an earlier batch's.
func (r *recycler) AllocateDirty(size int) []byte {
	c := classOf(size)
	if size == 0 || c > maxClass {
		return r.Allocate(size)
	}
	var full []byte
	if p, ok := r.classes[c].Get().(*[]byte); ok {
		full = *p
	} else {
		full = aligned(1<<c, 1<<c)
	}
	r.live.store(rawmem.Addr(full), c)
	return full[:size:size]
}

// aligned returns a new slice of length size and capacity capacity whose
// first byte is 64-byte aligned.
func aligned(size, capacity int) []byte {
	buf := make([]byte, capacity+alignment-1)
	off := 0
	if rem := rawmem.Addr(buf) % alignment; rem != 0 {
		off = alignment - int(rem)
	}
	return buf[off : off+size : off+capacity]
}

// class returns the size class of a buffer this allocator handed out and
// has not taken back, or false.
func (r *recycler) class(b []byte) (int, bool) {
	if cap(b) == 0 {
		return 0, false
	}
	return r.live.load(rawmem.Addr(b))
}

// Free keeps b for reuse when this allocator handed it out.
func (r *recycler) Free(b []byte) {
	c, ok := r.class(b)
	if !ok {
		return
	}
	r.live.delete(rawmem.Addr(b))
	if full, ok := rawmem.Recap(b, 1<<c); ok {
		r.classes[c].Put(&full)
	}
}

// Reallocate grows or shrinks b to size, keeping its contents; within its
// size class it stays in place.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if c, ok := r.class(b); ok && size > 0 && size <= 1<<c {
		if full, ok := rawmem.Recap(b, 1<<c); ok {
			if old := len(b); size > old {
				clear(full[old:size])
			}
			return full[:size:size]
		}
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}
