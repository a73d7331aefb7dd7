package cache

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
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
type recycler struct {
	classes [maxClass + 1]sync.Pool // of *[]byte with cap 1<<class
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

// Allocate returns size zeroed bytes, 64-byte aligned.
func (r *recycler) Allocate(size int) []byte {
	c := classOf(size)
	if c > maxClass {
		return aligned(size, size)
	}
	if p, ok := r.classes[c].Get().(*[]byte); ok {
		b := (*p)[:size]
		clear(b)
		return b
	}
	return aligned(size, 1<<c)
}

// aligned returns a new slice of length size and capacity capacity whose
// first byte is 64-byte aligned.
func aligned(size, capacity int) []byte {
	buf := make([]byte, capacity+alignment-1)
	off := 0
	if rem := uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % alignment; rem != 0 {
		off = alignment - int(rem)
	}
	return buf[off : off+size : off+capacity]
}

// Free keeps b for reuse when it is one of ours (a power-of-two capacity
// in the pooled classes).
func (r *recycler) Free(b []byte) {
	c := cap(b)
	if c < 1<<minClass || c > 1<<maxClass || c&(c-1) != 0 {
		return
	}
	b = b[:c]
	r.classes[bits.Len(uint(c))-1].Put(&b)
}

// Reallocate grows or shrinks b to size, keeping its contents.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}
