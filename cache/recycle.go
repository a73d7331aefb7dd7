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
	live sync.Map // uintptr -> size class (int)
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
	r.live.Store(rawmem.Addr(full), c)
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
	r.live.Store(rawmem.Addr(full), c)
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
	v, ok := r.live.Load(rawmem.Addr(b))
	if !ok {
		return 0, false
	}
	return v.(int), true
}

// Free keeps b for reuse when this allocator handed it out.
func (r *recycler) Free(b []byte) {
	c, ok := r.class(b)
	if !ok {
		return
	}
	r.live.Delete(rawmem.Addr(b))
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
