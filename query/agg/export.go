package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fixedOut builds one fixed-width Arrow array in buffers from the caller's
// allocator: fill vals (and setNull), then finish. For BOOL, vals holds
// 0/1 bytes that finish packs into the bitmap.
type fixedOut[T arrow.FixedWidthType] struct {
	mem      memory.Allocator
	dt       arrow.DataType
	n        int
	vals     []T
	valBuf   *memory.Buffer
	validBuf *memory.Buffer
	valid    []byte
	nulls    int
}

func newFixedOut[T arrow.FixedWidthType](mem memory.Allocator, dt arrow.DataType, n int) *fixedOut[T] {
	o := &fixedOut[T]{mem: mem, dt: dt, n: n}
	if dt.ID() == arrow.BOOL {
		o.vals = make([]T, n)
		return o
	}
	o.valBuf = memory.NewResizableBuffer(mem)
	o.valBuf.Resize(n * int(sizeOf[T]()))
	o.vals = arrow.GetData[T](o.valBuf.Bytes())[:n]
	return o
}

// allValid allocates the validity bitmap with every bit set.
func (o *fixedOut[T]) allValid() {
	if o.validBuf != nil {
		return
	}
	o.validBuf = newBitmap(o.mem, o.n)
	o.valid = o.validBuf.Bytes()
	bitutil.SetBitsTo(o.valid, 0, int64(o.n), true)
}

// setNull marks element i NULL (its value zero).
func (o *fixedOut[T]) setNull(i int) {
	o.allValid()
	bitutil.ClearBit(o.valid, i)
	var zero T
	o.vals[i] = zero
	o.nulls++
}

// copyValidity takes the validity of the n elements from bit from of src.
func (o *fixedOut[T]) copyValidity(src []byte, from int) {
	o.allValid()
	bitutil.CopyBitmap(src, from, o.n, o.valid, 0)
	o.nulls = o.n - bitutil.CountSetBits(o.valid, 0, o.n)
}

func (o *fixedOut[T]) finish() arrow.Array {
	valBuf := o.valBuf
	if o.dt.ID() == arrow.BOOL {
		valBuf = newBitmap(o.mem, o.n)
		bm := valBuf.Bytes()
		for i, v := range any(o.vals).([]uint8) {
			bitutil.SetBitTo(bm, i, v != 0)
		}
	}
	return finishArray(o.dt, o.n, o.nulls, o.validBuf, valBuf)
}

// finishArray makes an array of the buffers and releases the caller's
// references to them. A validity buffer with no NULLs is dropped.
func finishArray(dt arrow.DataType, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	if nulls == 0 && bufs[0] != nil {
		bufs[0].Release()
		bufs[0] = nil
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	arr := array.MakeFromData(data)
	data.Release()
	return arr
}

// newBitmap returns a zeroed buffer of n bits.
func newBitmap(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(b.Bytes())
	return b
}
