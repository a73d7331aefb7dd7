package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// kleene is AND (and true) or OR of two Boolean operands with SQL's
// three-valued logic, a byte at a time over the bitmaps. It is ours rather
// than arrow-go's and_kleene / or_kleene (which agree on every row) because
// those visit words through a callback and are about 4 times slower
// (BenchmarkKernels), more than the comparisons that feed them.
func kleene(mem memory.Allocator, and bool, n int, l, r operand) arrow.Array {
	nb := int(bitutil.BytesForBits(int64(n)))
	lv, lx := boolBytes(l, nb)
	rv, rx := boolBytes(r, nb)
	validity := newBits(mem, n)
	out := newBits(mem, n)
	ov, ox := validity.Bytes()[:nb], out.Bytes()[:nb]
	for i := range ox {
		a, av, b, bv := lx[i], lv[i], rx[i], rv[i]
		if and {
			// valid when both are, or either is a known FALSE
			ov[i] = av&bv | av&^a | bv&^b
			ox[i] = a & b & av & bv
		} else {
			// valid when both are, or either is a known TRUE
			ov[i] = av&bv | av&a | bv&b
			ox[i] = a&av | b&bv
		}
	}
	nulls := n - bitutil.CountSetBits(ov, 0, n)
	if nulls == 0 {
		validity.Release()
		validity = nil
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// boolBytes returns an operand's validity and value bitmaps as nb bytes
// starting at row 0 (copied when the array's offset is not byte aligned).
func boolBytes(o operand, nb int) (valid, vals []byte) {
	fill := func(b byte) []byte {
		s := make([]byte, nb)
		for i := range s {
			s[i] = b
		}
		return s
	}
	if o.lit != nil {
		switch {
		case o.lit.null:
			return fill(0), fill(0)
		case o.lit.b:
			return fill(0xff), fill(0xff)
		}
		return fill(0xff), fill(0)
	}
	n, off := o.arr.Len(), o.arr.Data().Offset()
	bits := func(buf []byte) []byte {
		if len(buf) < int(bitutil.BytesForBits(int64(off+n))) {
			return fill(0) // no buffer: an empty or all-NULL array
		}
		if off%8 == 0 {
			return buf[off/8:][:nb]
		}
		s := make([]byte, nb)
		bitutil.CopyBitmap(buf, off, n, s, 0)
		return s
	}
	var buf []byte
	if b := o.arr.Data().Buffers()[1]; b != nil {
		buf = b.Bytes()
	}
	vals = bits(buf)
	if o.arr.NullN() == 0 {
		return fill(0xff), vals
	}
	if o.arr.NullN() == n {
		return fill(0), vals
	}
	return bits(o.arr.NullBitmapBytes()), vals
}
