package column

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Fixed builds a column of a fixed-width type: integers, floats, dates,
// times, timestamps, durations, intervals, decimals and fixed-size
// binary. Its bulk path is one block copy of the values whether or not
// the input has nulls (what lies under a null is unspecified, so it is
// copied as is) and one bitmap copy of the validity.
type Fixed struct {
	dt      arrow.DataType
	w       int
	capRows int
	v       validity
	vals    buf // len(vals.b) is the capacity; rows are v.n*w bytes
	dict    dictCache
}

func newFixed(dt arrow.DataType, w int, mem memory.Allocator, capRows int) *Fixed {
	return &Fixed{dt: dt, w: w, capRows: capRows, v: newValidity(mem), vals: buf{mem: mem}}
}

// Type is the column's fixed-width type.
func (f *Fixed) Type() arrow.DataType { return f.dt }

// Len is the rows appended since the last Finish or Reset.
func (f *Fixed) Len() int { return f.v.n }

// Width is the bytes of one value.
func (f *Fixed) Width() int { return f.w }

// Bytes counts Len()*Width() value bytes and the validity.
func (f *Fixed) Bytes() int64 { return int64(f.v.n*f.w) + f.v.bytes() }

// Reserve makes room for n more rows: on the first use of a batch, for
// the whole batch at once.
func (f *Fixed) Reserve(n int) {
	if need := (f.v.n + n) * f.w; need > len(f.vals.b) {
		f.vals.grow(max(need, f.capRows*f.w))
	}
	f.v.ensure(f.v.n + n)
}

// Raw returns the whole value buffer (its capacity): rows are written by
// index, row i at [i*Width(), (i+1)*Width()), after Reserve, and then
// counted with Advance.
func (f *Fixed) Raw() []byte { return f.vals.b }

// SetNull marks row i null (i may be ≥ Len(): rows written by index).
func (f *Fixed) SetNull(i int) { f.v.setNull(i) }

// Advance counts n rows written by index past Len().
func (f *Fixed) Advance(n int) { f.v.n += n }

// Values views the value buffer as T (whose size must be Width()).
func Values[T arrow.FixedWidthType](f *Fixed) []T { return arrow.GetData[T](f.vals.b) }

// Append appends one valid value of the builder's width.
func Append[T arrow.FixedWidthType](f *Fixed, v T) {
	f.Reserve(1)
	arrow.GetData[T](f.vals.b)[f.v.n] = v
	f.v.n++
}

// AppendNull appends one null row.
func (f *Fixed) AppendNull() {
	f.Reserve(1)
	f.v.setNull(f.v.n)
	f.v.n++
}

// AppendNulls appends n null rows with zeroed values.
func (f *Fixed) AppendNulls(n int) {
	f.Reserve(n)
	clear(f.vals.b[f.v.n*f.w : (f.v.n+n)*f.w])
	f.v.appendNulls(n)
}

// AppendArray appends rows [start, start+n) of arr: one block copy of the
// values, nulls and all, and one bitmap copy of the validity; a
// dictionary input is gathered by value width.
func (f *Fixed) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	if d := dictionary(arr); d != nil {
		return f.appendDict(d, start, n, mask)
	}
	data := arr.Data()
	off := data.Offset() + start
	f.Reserve(n)
	src := bufBytes(data.Buffers()[1])
	copy(f.vals.b[f.v.n*f.w:], src[off*f.w:(off+n)*f.w])
	f.v.appendFrom(data, off, n, mask)
	return nil
}

// Measure counts n values and their validity; fixed-width values have no
// offsets to overflow, so they always fit.
func (f *Fixed) Measure(arr arrow.Array, start, n int) (int64, bool) {
	return int64(n*f.w) + validityBytes(arr, n), true
}

// Truncate drops the rows past n.
func (f *Fixed) Truncate(n int) { f.v.truncate(n) }

// Finish hands over validity and values as array data and empties the
// builder.
func (f *Fixed) Finish() arrow.ArrayData {
	n := f.v.n
	valid, nulls := f.v.finish()
	f.vals.n = n * f.w
	vals := f.vals.finish()
	if vals == nil {
		vals = memory.NewBufferBytes(nil)
	}
	f.dict.release()
	return finishData(f.dt, n, []*memory.Buffer{valid, vals}, nil, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (f *Fixed) Snapshot() arrow.ArrayData {
	n := f.v.n
	valid, nulls := f.v.snapshot()
	f.vals.n = n * f.w
	vals := f.vals.snapshot()
	if vals == nil {
		vals = memory.NewBufferBytes(nil)
	}
	return finishData(f.dt, n, []*memory.Buffer{valid, vals}, nil, nulls)
}

// Reset empties the builder and keeps its buffers.
func (f *Fixed) Reset() { f.v.reset(); f.vals.n = 0; f.dict.release() }

// Release frees the builder's buffers and the dictionary it holds.
func (f *Fixed) Release() { f.v.release(); f.vals.release(); f.dict.release() }

// validityBytes is the bitmap bytes n rows of arr may need.
func validityBytes(arr arrow.Array, n int) int64 {
	if arr.NullN() == 0 {
		return 0
	}
	return bitutil.BytesForBits(int64(n))
}

func bufBytes(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// Null builds a column of the null type: a count.
type Null struct {
	dt arrow.DataType
	n  int
}

// Type is arrow's null type.
func (b *Null) Type() arrow.DataType { return b.dt }

// Len is the rows counted since the last Finish or Reset.
func (b *Null) Len() int { return b.n }

// Bytes is 0: a null column has no buffers.
func (b *Null) Bytes() int64 { return 0 }

// AppendArray counts n more rows; arr's contents do not matter.
func (b *Null) AppendArray(arr arrow.Array, start, n int, _ Mask) error {
	b.n += n
	return nil
}

// Measure is 0 bytes, and always fits.
func (b *Null) Measure(arrow.Array, int, int) (int64, bool) { return 0, true }

// AppendNulls counts n more rows.
func (b *Null) AppendNulls(n int) { b.n += n }

// Truncate keeps at most n rows.
func (b *Null) Truncate(n int) { b.n = min(b.n, n) }

// Finish hands over the count as null array data and starts again at 0.
func (b *Null) Finish() arrow.ArrayData {
	n := b.n
	b.n = 0
	return array.NewData(b.dt, n, []*memory.Buffer{nil}, nil, n, 0)
}

// Snapshot returns the count as null array data.
func (b *Null) Snapshot() arrow.ArrayData {
	return array.NewData(b.dt, b.n, []*memory.Buffer{nil}, nil, b.n, 0)
}

// Reset starts the count again at 0.
func (b *Null) Reset() { b.n = 0 }

// Release is Reset: a null column holds no memory.
func (b *Null) Release() { b.n = 0 }
