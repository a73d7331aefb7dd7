package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/bufs"
)

// This file holds the plumbing of our own kernels: typed views of arrays,
// output buffers and validity bitmaps. Kernels compute values only for rows
// whose inputs are all valid and write zero elsewhere, so whatever bytes sit
// under a NULL never raise an overflow or a division by zero.

// errCode is a kernel's per-row outcome; the expression turns it into an
// error naming itself.
type errCode uint8

const (
	codeOK errCode = iota
	codeOverflow
	codeDivZero
)

// values is the typed view of a fixed-width array (offset applied).
func values[T arrow.FixedWidthType](a arrow.Array) []T {
	return arrow.GetValues[T](a.Data(), 1)
}

func sizeOf[T arrow.FixedWidthType]() int {
	var z T
	// The switch is on exact types: named types over int32 (Date32,
	// Decimal32) need their own case or they would get 8 bytes.
	switch any(z).(type) {
	case int8, uint8:
		return 1
	case int16, uint16, float16.Num:
		return 2
	case int32, uint32, float32, arrow.Date32, decimal.Decimal32, arrow.MonthInterval:
		return 4
	case decimal128.Num, arrow.MonthDayNanoInterval:
		return 16
	case decimal256.Num:
		return 32
	}
	return 8
}

// newValues allocates an output buffer of n values of T.
func newValues[T arrow.FixedWidthType](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * sizeOf[T]())
	if n == 0 {
		return buf, nil
	}
	return buf, arrow.GetData[T](buf.Bytes())[:n]
}

// newDirtyValues is newValues for a kernel that writes all n values:
// the buffer is not cleared first (bufs.NewDirty).
func newDirtyValues[T arrow.FixedWidthType](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	buf := bufs.NewDirty(mem, n*sizeOf[T]())
	if n == 0 {
		return buf, nil
	}
	return buf, arrow.GetData[T](buf.Bytes())[:n]
}

// newBits allocates a bitmap of n bits, all clear.
func newBits(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(buf.Bytes())
	return buf
}

// makeArray builds an array of typ from its buffers, taking over the
// caller's references (validity may be nil).
func makeArray(typ arrow.DataType, n int, validity *memory.Buffer, nulls int, bufs ...*memory.Buffer) arrow.Array {
	all := append([]*memory.Buffer{validity}, bufs...)
	data := array.NewData(typ, n, all, nil, nulls, 0)
	arr := array.MakeFromData(data)
	data.Release()
	for _, b := range all {
		if b != nil {
			b.Release()
		}
	}
	return arr
}

func releaseBufs(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

// bitmap is a validity bitmap; bits == nil means every row is valid,
// unless none is set (a NULL-typed array, which has no bitmap).
type bitmap struct {
	bits []byte
	off  int
	none bool
}

func validityOf(a arrow.Array) bitmap {
	switch {
	case a == nil || a.NullN() == 0:
		return bitmap{}
	case a.DataType().ID() == arrow.NULL:
		return bitmap{none: true}
	}
	return bitmap{a.NullBitmapBytes(), a.Data().Offset(), false}
}

func (b bitmap) valid(i int) bool {
	if b.bits == nil {
		return !b.none
	}
	return bitutil.BitIsSet(b.bits, b.off+i)
}

// combineValidity returns the validity of an n-row result that is valid
// where every array in arrs is (nil arrays are constants and ignored), and
// its null count. The buffer is nil when no row is NULL.
func combineValidity(mem memory.Allocator, n int, arrs ...arrow.Array) (*memory.Buffer, int) {
	var with []arrow.Array
	for _, a := range arrs {
		if a != nil && a.NullN() > 0 {
			with = append(with, a)
		}
	}
	if len(with) == 0 {
		return nil, 0
	}
	if len(with) == 1 && with[0].Data().Offset() == 0 {
		buf := with[0].Data().Buffers()[0]
		buf.Retain()
		return buf, with[0].NullN()
	}
	out := newBits(mem, n)
	bits := out.Bytes()
	first := with[0]
	bitutil.CopyBitmap(first.NullBitmapBytes(), first.Data().Offset(), n, bits, 0)
	for _, a := range with[1:] {
		bitutil.BitmapAnd(bits, a.NullBitmapBytes(), 0, int64(a.Data().Offset()), bits, 0, int64(n))
	}
	return out, n - bitutil.CountSetBits(bits, 0, n)
}

// mapFixed applies fn to every valid value of in (a fixed-width array with
// values vals) and returns an array of typ with in's validity.
func mapFixed[I, O arrow.FixedWidthType](mem memory.Allocator, typ arrow.DataType, in arrow.Array, vals []I, fn func(I) (O, error)) (arrow.Array, error) {
	n := in.Len()
	validity, nulls := combineValidity(mem, n, in)
	buf, out := newValues[O](mem, n)
	v := validityOf(in)
	for i, x := range vals {
		if !v.valid(i) {
			var z O
			out[i] = z
			continue
		}
		y, err := fn(x)
		if err != nil {
			releaseBufs(validity, buf)
			return nil, err
		}
		out[i] = y
	}
	return makeArray(typ, n, validity, nulls, buf), nil
}

// side is one operand of a binary kernel seen as typed values: either
// vals (one per row) or, when konst, the constant c.
type side[T arrow.FixedWidthType] struct {
	vals  []T
	c     T
	konst bool
}

func (s side[T]) at(i int) T {
	if s.konst {
		return s.c
	}
	return s.vals[i]
}

// sideOf views an operand as typed values; lit gives a constant's value.
func sideOf[T arrow.FixedWidthType](o operand, lit func(*literal) T) side[T] {
	if o.lit != nil {
		return side[T]{c: lit(o.lit), konst: true}
	}
	return side[T]{vals: values[T](o.arr)}
}

// binaryFixed computes fn over the rows where both operands are valid.
// The constant operands (lits) must not be NULL. On a failing row it
// returns the row's code and index.
func binaryFixed[A, B, O arrow.FixedWidthType](mem memory.Allocator, typ arrow.DataType, n int, la, ra arrow.Array, l side[A], r side[B], fn func(A, B) (O, errCode)) (arrow.Array, errCode, int) {
	validity, nulls := combineValidity(mem, n, la, ra)
	buf, out := newValues[O](mem, n)
	var v bitmap
	if validity != nil {
		v = bitmap{bits: validity.Bytes()}
	}
	for i := range out {
		if !v.valid(i) {
			var z O
			out[i] = z
			continue
		}
		y, code := fn(l.at(i), r.at(i))
		if code != codeOK {
			releaseBufs(validity, buf)
			return nil, code, i
		}
		out[i] = y
	}
	return makeArray(typ, n, validity, nulls, buf), codeOK, 0
}
