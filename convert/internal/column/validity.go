package column

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Mask is a parent's validity laid over the rows being appended: the row
// start+i of the appended slice is valid only if bit Offset+i of Bits is
// set. A nil Bits masks nothing. Structs pass their own validity to their
// children this way, so the fields of a null struct come out null.
type Mask struct {
	Bits   []byte
	Offset int
}

// validity is a builder's row count and validity bitmap. The bitmap is
// valid by default: it is not allocated until the first null, and once
// it is, every bit at or past n (up to the capacity) is kept set, so a
// valid row costs nothing and only a null touches the bitmap.
type validity struct {
	n    int // rows
	has  bool
	bits buf
}

func newValidity(mem memory.Allocator) validity { return validity{bits: buf{mem: mem, zero: true}} }

// materialize allocates the bitmap for at least rows rows, all set.
func (v *validity) materialize(rows int) {
	if v.has {
		v.ensure(rows)
		return
	}
	v.has = true
	need := int(bitutil.BytesForBits(int64(max(rows, 1))))
	if len(v.bits.b) < need {
		v.bits.n = 0
		v.bits.grow(need)
	}
	setOnes(v.bits.b)
}

// ensure makes the bitmap (when there is one) hold rows bits, new bits set.
func (v *validity) ensure(rows int) {
	need := int(bitutil.BytesForBits(int64(rows)))
	if !v.has || need <= len(v.bits.b) {
		return
	}
	old := len(v.bits.b)
	v.bits.n = old
	v.bits.grow(need)
	setOnes(v.bits.b[old:])
}

func setOnes(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
}

// setNull clears row i's bit (i may be past n: rows written by index).
func (v *validity) setNull(i int) {
	v.materialize(i + 1)
	bitutil.ClearBit(v.bits.b, i)
}

// appendNulls appends n null rows.
func (v *validity) appendNulls(n int) {
	if n <= 0 {
		return
	}
	v.materialize(v.n + n)
	bitutil.SetBitsTo(v.bits.b, int64(v.n), int64(n), false)
	v.n += n
}

// appendFrom appends the validity of rows [off, off+n) of data (offset
// already applied), ANDed with mask.
func (v *validity) appendFrom(data arrow.ArrayData, off, n int, mask Mask) {
	var src []byte
	if b := data.Buffers()[0]; b != nil && data.NullN() > 0 {
		src = b.Bytes()
	}
	v.appendBits(src, off, n, mask)
}

// appendBits appends n validity bits from src at off (nil: all valid),
// ANDed with mask.
func (v *validity) appendBits(src []byte, off, n int, mask Mask) {
	switch {
	case src == nil && mask.Bits == nil:
		v.ensure(v.n + n)
	case mask.Bits == nil:
		v.materialize(v.n + n)
		bitutil.CopyBitmap(src, off, n, v.bits.b, v.n)
	case src == nil:
		v.materialize(v.n + n)
		bitutil.CopyBitmap(mask.Bits, mask.Offset, n, v.bits.b, v.n)
	default:
		v.materialize(v.n + n)
		bitutil.BitmapAnd(src, mask.Bits, int64(off), int64(mask.Offset), v.bits.b, int64(v.n), int64(n))
	}
	v.n += n
}

// andMask clears the bits of rows [at, at+n) that mask clears.
func (v *validity) andMask(at, n int, mask Mask) {
	if mask.Bits == nil || n == 0 {
		return
	}
	v.materialize(at + n)
	for i := range n {
		if !bitutil.BitIsSet(mask.Bits, mask.Offset+i) {
			bitutil.ClearBit(v.bits.b, at+i)
		}
	}
}

// truncate drops rows past n, restoring their bits to set.
func (v *validity) truncate(n int) {
	if n >= v.n {
		return
	}
	if v.has {
		bitutil.SetBitsTo(v.bits.b, int64(n), int64(v.n-n), true)
	}
	v.n = n
}

// mask is the validity of rows [at, at+n) for children (nil: all valid).
func (v *validity) mask(at int) Mask {
	if !v.has {
		return Mask{}
	}
	return Mask{Bits: v.bits.b, Offset: at}
}

func (v *validity) bytes() int64 {
	if !v.has {
		return 0
	}
	return bitutil.BytesForBits(int64(v.n))
}

// finish returns the bitmap (nil if no row is null) and the null count,
// and leaves v empty.
func (v *validity) finish() (*memory.Buffer, int) {
	n := v.n
	v.n = 0
	if !v.has {
		return nil, 0
	}
	v.has = false
	nulls := n - bitutil.CountSetBits(v.bits.b, 0, n)
	v.bits.n = int(bitutil.BytesForBits(int64(n)))
	if nulls == 0 {
		v.bits.n = 0 // keep the memory for the next batch
		return nil, 0
	}
	return v.bits.finish(), nulls
}

// snapshot is finish for reuse mode: the bitmap stays with v.
func (v *validity) snapshot() (*memory.Buffer, int) {
	if !v.has {
		return nil, 0
	}
	nulls := v.n - bitutil.CountSetBits(v.bits.b, 0, v.n)
	if nulls == 0 {
		return nil, 0
	}
	v.bits.n = int(bitutil.BytesForBits(int64(v.n)))
	return v.bits.snapshot(), nulls
}

// reset empties v for reuse, keeping its memory.
func (v *validity) reset() {
	v.n, v.has, v.bits.n = 0, false, 0
}

func (v *validity) release() { v.bits.release(); v.n, v.has = 0, false }
