package column

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// Offset is the width of a variable-length layout's offsets.
type Offset interface{ int32 | int64 }

// Binary builds a String, Binary, LargeString or LargeBinary column. Its
// bulk path writes the offsets in one pass (rebased by one subtraction
// each) and copies the rows' bytes, which are adjacent in the input, in
// one block; the validity is one bitmap copy.
type Binary[O Offset] struct {
	dt      arrow.DataType
	capRows int
	v       validity
	offs    buf // (rows+1) offsets; offs[0] = 0
	data    buf
	dict    dictCache
	// hint is the data bytes of the last finished batch: the next one
	// reserves as much at once.
	hint int
}

func newBinary[O Offset](dt arrow.DataType, mem memory.Allocator, capRows int) *Binary[O] {
	return &Binary[O]{dt: dt, capRows: capRows, v: newValidity(mem), offs: buf{mem: mem, zero: true}, data: buf{mem: mem}}
}

// width of O in bytes.
func offsetSize[O Offset]() int { return rawmem.Sizeof[O]() }

// offsetBytes is the size of n rows' offsets (none for no rows).
func offsetBytes[O Offset](n int) int64 {
	if n == 0 {
		return 0
	}
	return int64((n + 1) * offsetSize[O]())
}

// Type is the column's type: String, Binary, LargeString or LargeBinary.
func (b *Binary[O]) Type() arrow.DataType { return b.dt }

// Len is the rows appended since the last Finish or Reset.
func (b *Binary[O]) Len() int { return b.v.n }

// DataLen is the bytes of value data appended so far.
func (b *Binary[O]) DataLen() int { return b.data.n }

// Data is the bytes appended so far.
func (b *Binary[O]) Data() []byte { return b.data.b[:b.data.n] }

// Bytes counts the value data, the offsets and the validity bitmap.
func (b *Binary[O]) Bytes() int64 {
	return int64(b.data.n) + offsetBytes[O](b.v.n) + b.v.bytes()
}

// Reserve makes room for n more rows and dataBytes more bytes.
func (b *Binary[O]) Reserve(n, dataBytes int) {
	w := offsetSize[O]()
	if need := (b.v.n + n + 1) * w; need > len(b.offs.b) {
		b.offs.grow(max(need, (b.capRows+1)*w))
	}
	b.v.ensure(b.v.n + n)
	if b.data.n+dataBytes > len(b.data.b) {
		b.data.grow(max(b.data.n+dataBytes, b.hint))
	}
}

func (b *Binary[O]) offsets() []O { return arrow.GetData[O](b.offs.b) }

// Append appends one valid value. For int32 offsets it returns ErrOffsets
// (and appends nothing) when the column's data would pass MaxOffset.
func (b *Binary[O]) Append(v []byte) error {
	if offsetSize[O]() == 4 && int64(b.data.n)+int64(len(v)) > MaxOffset {
		return fmt.Errorf("%w: %d bytes of data plus a value of %d", ErrOffsets, b.data.n, len(v))
	}
	b.Reserve(1, len(v))
	b.data.n += copy(b.data.b[b.data.n:], v)
	b.offsets()[b.v.n+1] = O(b.data.n)
	b.v.n++
	return nil
}

// AppendString is Append of a string's bytes (Append copies them, so
// they need no copy of their own).
func (b *Binary[O]) AppendString(v string) error {
	return b.Append(rawmem.Bytes(v))
}

// SetNull marks row i (< Len()) null; its bytes stay, unreachable.
func (b *Binary[O]) SetNull(i int) { b.v.setNull(i) }

// AppendNull appends one null row.
func (b *Binary[O]) AppendNull() {
	b.Reserve(1, 0)
	b.offsets()[b.v.n+1] = O(b.data.n)
	b.v.setNull(b.v.n)
	b.v.n++
}

// AppendNulls appends n null rows: each repeats the last offset, so
// they hold no bytes.
func (b *Binary[O]) AppendNulls(n int) {
	b.Reserve(n, 0)
	offs := b.offsets()
	for i := range n {
		offs[b.v.n+1+i] = O(b.data.n)
	}
	b.v.appendNulls(n)
}

// AppendArray appends rows [start, start+n) of arr (Builder.AppendArray):
// the offsets in one pass, the rows' adjacent bytes in one copy; a
// dictionary input is gathered row by row. For int32 offsets it returns
// ErrOffsets, appending nothing, when the data would pass MaxOffset.
func (b *Binary[O]) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	if d := dictionary(arr); d != nil {
		return b.appendDict(d, start, n, mask)
	}
	data := arr.Data()
	off := data.Offset() + start
	src := arrow.GetData[O](data.Buffers()[1].Bytes())[off : off+n+1]
	s0, s1 := src[0], src[n]
	if offsetSize[O]() == 4 && int64(b.data.n)+int64(s1-s0) > MaxOffset {
		return fmt.Errorf("%w: %d bytes of data plus %d", ErrOffsets, b.data.n, s1-s0)
	}
	b.Reserve(n, int(s1-s0))
	copy(b.data.b[b.data.n:], bufBytes(data.Buffers()[2])[s0:s1])
	delta := O(b.data.n) - s0
	dst := b.offsets()[b.v.n+1 : b.v.n+1+n]
	src = src[1:]
	for i := range dst {
		dst[i] = src[i] + delta
	}
	b.data.n += int(s1 - s0)
	b.v.appendFrom(data, off, n, mask)
	return nil
}

// Measure counts the rows' bytes, offsets and validity; fits is false
// when int32 offsets would pass MaxOffset with them.
func (b *Binary[O]) Measure(arr arrow.Array, start, n int) (int64, bool) {
	var bytes int64
	if d := dictionary(arr); d != nil {
		bytes = b.dictBytes(d, start, n)
	} else if n > 0 {
		data := arr.Data()
		off := data.Offset() + start
		src := arrow.GetData[O](data.Buffers()[1].Bytes())
		bytes = int64(src[off+n] - src[off])
	}
	fits := offsetSize[O]() == 8 || int64(b.data.n)+bytes <= MaxOffset
	return bytes + int64(n*offsetSize[O]()) + validityBytes(arr, n), fits
}

// Truncate drops the rows past n and their bytes.
func (b *Binary[O]) Truncate(n int) {
	if n >= b.v.n {
		return
	}
	b.data.n = int(b.offsets()[n])
	b.v.truncate(n)
}

// buffers sets the buffers' lengths for n rows (offsets always hold at
// least the leading 0).
func (b *Binary[O]) setLens() {
	if len(b.offs.b) == 0 {
		b.offs.grow((b.capRows + 1) * offsetSize[O]())
	}
	b.offs.n = (b.v.n + 1) * offsetSize[O]()
}

// Finish hands over validity, offsets and data as array data and empties
// the builder; later batches reserve at once as much data as the largest
// batch so far.
func (b *Binary[O]) Finish() arrow.ArrayData {
	n := b.v.n
	b.setLens()
	b.hint = max(b.hint, b.data.n)
	valid, nulls := b.v.finish()
	offs, data := b.offs.finish(), b.data.finish()
	if data == nil {
		data = memory.NewBufferBytes(nil)
	}
	b.dict.release()
	return finishData(b.dt, n, []*memory.Buffer{valid, offs, data}, nil, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (b *Binary[O]) Snapshot() arrow.ArrayData {
	n := b.v.n
	b.setLens()
	valid, nulls := b.v.snapshot()
	offs, data := b.offs.snapshot(), b.data.snapshot()
	if data == nil {
		data = memory.NewBufferBytes(nil)
	}
	return finishData(b.dt, n, []*memory.Buffer{valid, offs, data}, nil, nulls)
}

// Reset empties the builder and keeps its buffers.
func (b *Binary[O]) Reset() {
	b.v.reset()
	b.offs.n, b.data.n = 0, 0
	b.dict.release()
}

// Release frees the builder's buffers and the dictionary it holds.
func (b *Binary[O]) Release() {
	b.v.release()
	b.offs.release()
	b.data.release()
	b.dict.release()
}
