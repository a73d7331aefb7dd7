package column

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Bool builds a boolean column: values packed eight rows to a byte, the
// bulk path one bitmap copy for values and one for validity.
type Bool struct {
	capRows int
	v       validity
	vals    buf // bits; len(vals.b) bytes of capacity
	dict    dictCache
}

func newBool(mem memory.Allocator, capRows int) *Bool {
	return &Bool{capRows: capRows, v: newValidity(mem), vals: buf{mem: mem, zero: true}}
}

// Type is arrow's boolean type.
func (b *Bool) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }

// Len is the rows appended since the last Finish or Reset.
func (b *Bool) Len() int { return b.v.n }

// Bytes counts the value bits, rounded up to bytes, and the validity.
func (b *Bool) Bytes() int64 { return bitutil.BytesForBits(int64(b.v.n)) + b.v.bytes() }

// Reserve makes room for n more rows.
func (b *Bool) Reserve(n int) {
	if need := int(bitutil.BytesForBits(int64(b.v.n + n))); need > len(b.vals.b) {
		b.vals.grow(max(need, int(bitutil.BytesForBits(int64(b.capRows)))))
	}
	b.v.ensure(b.v.n + n)
}

// Set writes row i's value (rows written by index, see Fixed.Raw).
func (b *Bool) Set(i int, v bool) { bitutil.SetBitTo(b.vals.b, i, v) }

// SetNull marks row i null.
func (b *Bool) SetNull(i int) { b.v.setNull(i); bitutil.ClearBit(b.vals.b, i) }

// Advance counts n rows written by index.
func (b *Bool) Advance(n int) { b.v.n += n }

// Append appends one valid value.
func (b *Bool) Append(v bool) {
	b.Reserve(1)
	bitutil.SetBitTo(b.vals.b, b.v.n, v)
	b.v.n++
}

// AppendNull appends one null row.
func (b *Bool) AppendNull() {
	b.Reserve(1)
	b.SetNull(b.v.n)
	b.v.n++
}

// AppendNulls appends n null rows, their value bits cleared.
func (b *Bool) AppendNulls(n int) {
	b.Reserve(n)
	bitutil.SetBitsTo(b.vals.b, int64(b.v.n), int64(n), false)
	b.v.appendNulls(n)
}

// AppendArray appends rows [start, start+n) of arr: one bitmap copy for
// the values and one for the validity; a dictionary input is gathered row
// by row.
func (b *Bool) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	if d := dictionary(arr); d != nil {
		return b.appendDict(d, start, n, mask)
	}
	data := arr.Data()
	off := data.Offset() + start
	b.Reserve(n)
	bitutil.CopyBitmap(bufBytes(data.Buffers()[1]), off, n, b.vals.b, b.v.n)
	b.v.appendFrom(data, off, n, mask)
	return nil
}

// Measure counts the value bits and validity of n rows; a boolean column
// has no offsets to overflow, so it always fits.
func (b *Bool) Measure(arr arrow.Array, start, n int) (int64, bool) {
	return bitutil.BytesForBits(int64(n)) + validityBytes(arr, n), true
}

// Truncate drops the rows past n.
func (b *Bool) Truncate(n int) { b.v.truncate(n) }

// Finish hands over validity and values as array data and empties the
// builder.
func (b *Bool) Finish() arrow.ArrayData {
	n := b.v.n
	valid, nulls := b.v.finish()
	b.vals.n = int(bitutil.BytesForBits(int64(n)))
	vals := b.vals.finish()
	if vals == nil {
		vals = memory.NewBufferBytes(nil)
	}
	b.dict.release()
	return finishData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, vals}, nil, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (b *Bool) Snapshot() arrow.ArrayData {
	n := b.v.n
	valid, nulls := b.v.snapshot()
	b.vals.n = int(bitutil.BytesForBits(int64(n)))
	vals := b.vals.snapshot()
	if vals == nil {
		vals = memory.NewBufferBytes(nil)
	}
	return finishData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, vals}, nil, nulls)
}

// Reset empties the builder and keeps its buffers.
func (b *Bool) Reset() {
	b.v.reset()
	b.vals.n = 0
	b.dict.release()
}

// Release frees the builder's buffers and the dictionary it holds.
func (b *Bool) Release() { b.v.release(); b.vals.release(); b.dict.release() }
