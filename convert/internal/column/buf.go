package column

import (
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// buf is a growable byte buffer whose memory comes from an Arrow
// allocator, so that a CheckedAllocator sees every byte a builder holds.
// b is the whole allocation (len(b) is the capacity); n bytes are in use.
// Bytes past n are zero unless a caller wrote them.
type buf struct {
	mem memory.Allocator
	// zero: new capacity must read as zeros (bitmaps, which are ORed
	// and ANDed into); value buffers are always written before read.
	zero bool
	mb   *memory.Buffer // nil until the first reserve
	b    []byte
	n    int
}

// reserve makes room for extra more bytes past n.
func (b *buf) reserve(extra int) {
	if need := b.n + extra; need > len(b.b) {
		b.grow(need)
	}
}

// grow makes the capacity at least need: doubling, so that appends are
// amortized O(1), and never less than 64 bytes.
func (b *buf) grow(need int) {
	if b.mb == nil {
		b.mb = memory.NewResizableBuffer(b.mem)
	}
	c := max(need, 2*len(b.b), 64)
	old := len(b.b)
	b.mb.Reserve(c)
	b.b = b.mb.Buf()
	if b.zero {
		// Reallocate does not promise zeroed memory (Mallocator).
		clear(b.b[old:])
	}
}

// finish hands over the buffer with its length set to n and leaves b
// empty. It returns nil when nothing was ever reserved.
func (b *buf) finish() *memory.Buffer {
	mb := b.mb
	if mb != nil {
		mb.ResizeNoShrink(b.n)
	}
	b.mb, b.b, b.n = nil, nil, 0
	return mb
}

// snapshot returns the buffer with its length set to n, retained for
// the caller, and keeps it: the caller must release it before b is
// written again (reuse mode, see Builder.Snapshot).
func (b *buf) snapshot() *memory.Buffer {
	if b.mb == nil {
		return nil
	}
	b.mb.ResizeNoShrink(b.n)
	b.mb.Retain()
	return b.mb
}

func (b *buf) release() {
	if b.mb != nil {
		b.mb.Release()
	}
	b.mb, b.b, b.n = nil, nil, 0
}
