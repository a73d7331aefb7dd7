package cache

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// rowSet is "column IN (vals…)" on an integer column (see rowfilter.go):
// the non-NULL literals, sorted and distinct. A NULL among the literals
// never makes a row TRUE, so it is dropped.
type rowSet struct {
	col  int
	vals []int64
}

func setOf(schema *arrow.Schema, p Predicate) (rowSet, bool) {
	in, ok := p.(In)
	if !ok {
		return rowSet{}, false
	}
	kind, ok := integerColumn(schema, in.Col)
	if !ok {
		return rowSet{}, false
	}
	s := rowSet{col: in.Col}
	for _, v := range in.Vals {
		n, null, ok := integerValue(v, kind)
		if !ok {
			return rowSet{}, false
		}
		if !null {
			s.vals = append(s.vals, n)
		}
	}
	slices.Sort(s.vals)
	s.vals = slices.Compact(s.vals)
	return s, true
}

func (s rowSet) column() int { return s.col }

// estimate: the share of the batch's value range the set covers, at most
// one row per member; every row passes when the bounds are one member and
// nothing is NULL.
func (s rowSet) estimate(st ColumnStats) (float64, bool) {
	if len(s.vals) == 0 || st.AllNull() {
		return 0, false
	}
	r := rowRange{col: s.col, lo: s.vals[0], hi: s.vals[len(s.vals)-1]}
	share, _ := r.estimate(st)
	if len(s.vals) == 1 {
		share, all := rowRange{col: s.col, lo: s.vals[0], hi: s.vals[0]}.estimate(st)
		return share, all
	}
	return min(share, float64(len(s.vals))/8), false
}

func (s rowSet) keep(c *filterCol, sel []int32, all bool, n int) []int32 {
	if c.isNarrow {
		return keepMembers(c.narrow.vals, c.narrow.validBytes(), 0, s.vals, sel, all, n)
	}
	a := c.arr
	d := a.Data()
	off := d.Offset()
	var valid []byte
	if a.NullN() > 0 {
		valid = a.NullBitmapBytes()
	}
	b := d.Buffers()[1].Bytes()
	switch a.DataType().ID() {
	case arrow.INT8:
		return keepMembers(arrow.GetData[int8](b)[off:], valid, off, s.vals, sel, all, n)
	case arrow.INT16:
		return keepMembers(arrow.GetData[int16](b)[off:], valid, off, s.vals, sel, all, n)
	case arrow.INT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32:
		return keepMembers(arrow.GetData[int32](b)[off:], valid, off, s.vals, sel, all, n)
	case arrow.DECIMAL128:
		return keepWideMembers(arrow.GetData[decimal128.Num](b)[off:], valid, off, s.vals, sel, all, n)
	}
	return keepMembers(arrow.GetData[int64](b)[off:], valid, off, s.vals, sel, all, n)
}

// member reports whether v is one of the sorted vals: a scan of up to 8,
// a binary search past that.
func member(v int64, vals []int64) bool {
	if len(vals) <= 8 {
		for _, x := range vals {
			if x == v {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(vals, v)
	return ok
}

func keepMembers[T int8 | int16 | int32 | int64](vals []T, valid []byte, off int, set []int64, sel []int32, all bool, n int) []int32 {
	in := func(i int) bool {
		return (valid == nil || bit(valid, off+i) == 1) && member(int64(vals[i]), set)
	}
	return keepWhere(in, sel, all, n)
}

// keepWideMembers: a decimal128 outside 64 bits is no member.
func keepWideMembers(vals []decimal128.Num, valid []byte, off int, set []int64, sel []int32, all bool, n int) []int32 {
	in := func(i int) bool {
		v := vals[i]
		return (valid == nil || bit(valid, off+i) == 1) && v.HighBits() == int64(v.LowBits())>>63 && member(int64(v.LowBits()), set)
	}
	return keepWhere(in, sel, all, n)
}

// keepWhere keeps the rows of sel (every row of n when all) for which in
// is true.
func keepWhere(in func(int) bool, sel []int32, all bool, n int) []int32 {
	k := 0
	if all {
		sel = sel[:n]
		for i := range n {
			sel[k] = int32(i)
			k += b2int(in(i))
		}
		return sel[:k]
	}
	for _, i := range sel {
		sel[k] = i
		k += b2int(in(int(i)))
	}
	return sel[:k]
}
