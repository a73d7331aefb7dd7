package bufs

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poisoned hands out dirty bytes filled with 0xAA, as a recycled buffer
// may hold an earlier batch's bytes.
type poisoned struct{ *memory.CheckedAllocator }

func (p poisoned) AllocateDirty(size int) []byte {
	b := p.Allocate(size)
	for i := range b {
		b[i] = 0xAA
	}
	return b
}

// TestNewDirty: a DirtyAllocator's bytes come uncleared and go back to
// it; any other allocator's come zeroed; both are size bytes and are
// freed on Release.
func TestNewDirty(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d := NewDirty(poisoned{mem}, 100)
	if d.Len() != 100 || d.Bytes()[99] != 0xAA {
		t.Fatalf("dirty: %d bytes, last %#x", d.Len(), d.Bytes()[99])
	}
	d.Release()
	z := NewDirty(mem, 100)
	if z.Len() != 100 || z.Bytes()[99] != 0 {
		t.Fatalf("plain: %d bytes, last %#x", z.Len(), z.Bytes()[99])
	}
	z.Release()
}
