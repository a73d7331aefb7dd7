package take

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// A Mask is the rows still chosen after some of a filter's conjuncts: bit
// i set when row i is TRUE in every mask And took. A filter whose
// conjuncts each keep more than half the rows ANDs their masks here, a
// word at a time, and makes one selection at the end (Selection), instead
// of a selection per conjunct intersected with the last (an index per
// row kept, each written and read again).
type Mask struct {
	bits []byte
	n    int
}

// NewMask is a mask of n rows, the TRUE rows of mask (set and not NULL).
// A mask of no rows may have no values buffer at all (a constant
// evaluated over an empty batch).
func NewMask(mask *array.Boolean) *Mask {
	n := mask.Len()
	m := &Mask{bits: make([]byte, bitutil.BytesForBits(int64(n))), n: n}
	if n == 0 {
		return m
	}
	bitutil.CopyBitmap(mask.Data().Buffers()[1].Bytes(), mask.Data().Offset(), n, m.bits, 0)
	m.andValid(mask)
	return m
}

// And keeps the rows of m that are TRUE in mask too (of m's length).
func (m *Mask) And(mask *array.Boolean) {
	if m.n == 0 {
		return
	}
	bitutil.BitmapAnd(m.bits, mask.Data().Buffers()[1].Bytes(), 0, int64(mask.Data().Offset()), m.bits, 0, int64(m.n))
	m.andValid(mask)
}

// andValid clears the rows NULL in mask.
func (m *Mask) andValid(mask *array.Boolean) {
	if mask.NullN() == 0 {
		return
	}
	bitutil.BitmapAnd(m.bits, mask.NullBitmapBytes(), 0, int64(mask.Data().Offset()), m.bits, 0, int64(m.n))
}

// Count is the number of rows chosen.
func (m *Mask) Count() int { return bitutil.CountSetBits(m.bits, 0, m.n) }

// Selection appends the rows chosen to dst, ascending.
func (m *Mask) Selection(dst []int32) []int32 {
	for k := 0; k*8 < m.n; k++ {
		v := m.bits[k]
		if rest := m.n - k*8; rest < 8 {
			v &= byte(1)<<rest - 1
		}
		for v != 0 {
			dst = append(dst, int32(k*8+bits.TrailingZeros8(v)))
			v &= v - 1
		}
	}
	return dst
}
