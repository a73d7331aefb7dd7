package batch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// assembler builds array data from loaded buffers, checking every length
// and offset against the buffers before an array is made, so that no
// arrow-go accessor can read out of bounds later.
type assembler struct {
	rb    *meta.RecordBatch
	bufs  []*memory.Buffer // indexed like rb.Buffers; nil for empty buffers
	c     cursor
	mem   memory.Allocator
	dicts func(path []int) (arrow.ArrayData, error)
	path  []int
	name  string // top-level column name, for errors
}

func unsupportedType(dt arrow.DataType) error {
	return fmt.Errorf("%w: type %s", ErrUnsupported, dt)
}

// buffer returns the next buffer, retained, or nil when it is empty.
func (a *assembler) buffer() *memory.Buffer {
	b := a.bufs[a.c.buf]
	a.c.buf++
	if b != nil {
		b.Retain()
	}
	return b
}

func blen(b *memory.Buffer) int64 {
	if b == nil {
		return 0
	}
	return int64(b.Len())
}

// build assembles the field of type dt at the cursor.
func (a *assembler) build(dt arrow.DataType) (arrow.ArrayData, error) {
	node := a.rb.Nodes[a.c.node]
	a.c.node++
	n, nulls := node.Length, node.NullCount
	if n < 0 || nulls < 0 || nulls > n || n > maxArrayLen {
		return nil, corruptf("%s: field node length %d, null count %d", a.where(dt), n, nulls)
	}
	lay, width := layoutOf(dt)
	if lay == layoutFixed && width == 0 && n > 0 {
		// FixedSizeBinary of width 0 is valid Arrow, but arrow-go's
		// ValidateFull refuses any non-empty array of it (with a values
		// buffer or without), even those its own builder makes.
		return nil, fmt.Errorf("%w: %s: %d values of width 0", ErrUnsupported, a.where(dt), n)
	}
	nb := lay.bufferCount()
	if lay == layoutView {
		nb += int(a.rb.VariadicCounts[a.c.vari])
		a.c.vari++
	}
	bufs := make([]*memory.Buffer, nb)
	for i := range bufs {
		bufs[i] = a.buffer()
	}
	release := func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}
	children, err := a.buildChildren(dt)
	if err != nil {
		release()
		return nil, err
	}
	releaseChildren := func() {
		for _, c := range children {
			c.Release()
		}
	}
	switch lay {
	case layoutNull:
		nulls = n
	case layoutSparseUnion, layoutDenseUnion:
		// A union has no validity (since format 1.0): its slots are null
		// when the child values they select are. Arrow C++ reads its
		// node's null count as 0 whatever a writer put there, and
		// arrow-go's ValidateFull wants 0.
		nulls = 0
	}
	if err := a.check(dt, lay, width, n, nulls, bufs, children); err != nil {
		release()
		releaseChildren()
		return nil, corruptf("%s: %w", a.where(dt), err)
	}
	bufs = a.fillEmpty(lay, n, nulls, bufs)
	switch lay {
	case layoutNull, layoutRunEnd, layoutSparseUnion, layoutDenseUnion:
		// arrow-go keeps a nil validity slot for the layouts that have
		// none (its IPC reader and builders do; its validation counts it).
		bufs = append([]*memory.Buffer{nil}, bufs...)
	}
	var data *array.Data
	if dictType, ok := physical(dt).(*arrow.DictionaryType); ok {
		dict, err := a.dicts(a.path)
		if err == nil {
			if err = checkIndices(bufs[1], dictType.IndexType, n, nulls, bufs[0], dict.Len()); err != nil {
				err = corruptf("%w", err)
			}
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("%s: %w", a.where(dt), err)
		}
		data = array.NewDataWithDictionary(dt, int(n), bufs, int(nulls), 0, dict.(*array.Data))
	} else {
		data = array.NewData(dt, int(n), bufs, children, int(nulls), 0)
	}
	release()
	releaseChildren()
	return data, nil
}

// maxArrayLen bounds a field node's length so int conversions are safe.
const maxArrayLen = 1<<31 - 1

// where names the field being built, for errors only (it formats).
func (a *assembler) where(dt arrow.DataType) string {
	if len(a.path) > 1 {
		return fmt.Sprintf("column %q, child %v (%s)", a.name, a.path[1:], dt)
	}
	return fmt.Sprintf("column %q (%s)", a.name, dt)
}

func (a *assembler) buildChildren(dt arrow.DataType) ([]arrow.ArrayData, error) {
	types := childTypes(dt)
	if len(types) == 0 {
		return nil, nil
	}
	children := make([]arrow.ArrayData, 0, len(types))
	for i, ct := range types {
		a.path = append(a.path, i)
		c, err := a.build(ct)
		a.path = a.path[:len(a.path)-1]
		if err != nil {
			for _, done := range children {
				done.Release()
			}
			return nil, err
		}
		children = append(children, c)
	}
	return children, nil
}

// fillEmpty replaces buffers that were written empty but that arrow-go
// arrays index unconditionally (offsets of a zero-length array) with a
// zeroed buffer of the size they must have.
func (a *assembler) fillEmpty(lay layout, n, nulls int64, bufs []*memory.Buffer) []*memory.Buffer {
	zeros := func(i int, size int) {
		if bufs[i] == nil || bufs[i].Len() < size {
			if bufs[i] != nil {
				bufs[i].Release()
			}
			if size == 0 {
				bufs[i] = memory.NewBufferBytes(nil)
				return
			}
			b := memory.NewResizableBuffer(a.mem)
			b.Resize(size)
			clear(b.Bytes())
			bufs[i] = b
		}
	}
	switch lay {
	case layoutVarBinary, layoutList:
		zeros(1, int(n+1)*4)
	case layoutLargeVar, layoutLargeList:
		zeros(1, int(n+1)*8)
	case layoutDenseUnion:
		// arrow-go's DenseUnion.ValidateFull reads the offsets buffer
		// even when the union is empty, which writers send as no bytes;
		// the type ids of a non-empty union were checked present.
		zeros(1, 0)
	}
	if nulls == 0 && len(bufs) > 0 && lay != layoutSparseUnion && lay != layoutDenseUnion && lay != layoutRunEnd {
		if bufs[0] != nil {
			bufs[0].Release()
			bufs[0] = nil // no nulls: drop any validity bitmap
		}
	}
	return bufs
}

// bitmapBytes checks that a bitmap of n bits fits in b.
func bitmapFits(b *memory.Buffer, n int64) bool {
	return blen(b) >= bitutil.BytesForBits(n)
}
