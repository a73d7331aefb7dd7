package bufs

import "github.com/apache/arrow-go/v18/arrow/memory"

// DirtyAllocator is an allocator that can hand out bytes without clearing
// them (the cache's recycling allocator, and the query's per-batch
// allocator over it). A buffer a kernel overwrites entirely need not be
// cleared first: clearing recycled buffers cost TPC-H Q1 about a tenth
// of its time (memclr under memory.Buffer.Resize).
type DirtyAllocator interface {
	memory.Allocator
	// AllocateDirty is Allocate without the clearing; the bytes may be an
	// earlier buffer's. Free takes them back as it does Allocate's.
	AllocateDirty(size int) []byte
}

// NewDirty returns a buffer of size bytes from mem for a caller that
// writes every one of them before anyone reads it: not cleared when mem
// is a DirtyAllocator, zeroed otherwise.
func NewDirty(mem memory.Allocator, size int) *memory.Buffer {
	return NewDirtyWithSlack(mem, size, 0)
}

// NewDirtyWithSlack is NewDirty with slack more bytes allocated past the
// size bytes the buffer holds, for a decoder that may write past its
// output's end (zstd's fast copies: codec.DecodeSlack).
func NewDirtyWithSlack(mem memory.Allocator, size, slack int) *memory.Buffer {
	if d, ok := mem.(DirtyAllocator); ok {
		return memory.NewBufferWithAllocator(d.AllocateDirty(size + slack)[:size], d)
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Reserve(size + slack)
	buf.ResizeNoShrink(size)
	return buf
}
