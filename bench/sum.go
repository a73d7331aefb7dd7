package bench

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// What a read in the cache benchmark computes. A read that only decoded
// would measure a decoder whose output nobody looks at, and could not be
// checked; so every read reduces the columns it asked for to one number
// each, touching every value, and the answers of every holder of a
// relation must equal those of the in-memory records.
//
//   - int64 column: the sum of its valid values (wrapping);
//   - string column: the sum, over valid values, of the length plus the
//     first byte of each non-empty one, so the data bytes are read, not
//     only the offsets;
//   - no column: count(*), the rows;
//   - the filter: the count and the sum of the filter column's values
//     that pass it.

// answer is a read's result: rows counted (passing rows for a filter) and
// one sum per projected column (one, the filter column's, for a filter).
type answer struct {
	rows int64
	sums []int64
}

func (a answer) equal(b answer) bool { return a.rows == b.rows && slices.Equal(a.sums, b.sums) }

func (a answer) String() string { return fmt.Sprintf("rows %d, sums %v", a.rows, a.sums) }

// sumColumn reduces one column as the comment above says.
func sumColumn(arr arrow.Array) (int64, error) {
	switch a := arr.(type) {
	case *array.Int64:
		return sumInt64(a), nil
	case *array.String:
		return sumStrings(a.ValueOffsets(), a.Data(), a.NullN()), nil
	case *array.LargeString:
		return sumStrings(a.ValueOffsets(), a.Data(), a.NullN()), nil
	}
	return 0, fmt.Errorf("bench: cannot sum a column of type %s", arr.DataType())
}

// sumInt64 adds the valid values without a branch per value: a null's
// slot may hold anything, so it is masked, not trusted to be 0.
func sumInt64(a *array.Int64) int64 {
	vals := a.Int64Values()
	var s int64
	if a.NullN() == 0 {
		for _, v := range vals {
			s += v
		}
		return s
	}
	bits, off := a.NullBitmapBytes(), a.Data().Offset()
	for i, v := range vals {
		j := off + i
		s += v & -int64(bits[j>>3]>>(j&7)&1)
	}
	return s
}

// sumStrings reads offs (already shifted to the array's offset) into the
// whole data buffer of d.
func sumStrings[O int32 | int64](offs []O, d arrow.ArrayData, nulls int) int64 {
	var data, bits []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	if nulls > 0 {
		bits = d.Buffers()[0].Bytes()
	}
	off := d.Offset()
	var s int64
	for i := range len(offs) - 1 {
		if bits != nil && !bitutil.BitIsSet(bits, off+i) {
			continue
		}
		b, e := offs[i], offs[i+1]
		if e > b {
			s += int64(e-b) + int64(data[b])
		}
	}
	return s
}

// sumBetween counts and sums the valid values of a in [lo, hi].
func sumBetween(a *array.Int64, lo, hi int64) (n, sum int64) {
	bits, off, nulls := a.NullBitmapBytes(), a.Data().Offset(), a.NullN()
	for i, v := range a.Int64Values() {
		if v >= lo && v <= hi && (nulls == 0 || bitutil.BitIsSet(bits, off+i)) {
			n++
			sum += v
		}
	}
	return n, sum
}
