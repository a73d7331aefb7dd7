package cache

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Row filtering: [ScanOptions.Rows] are conjuncts the scan evaluates on
// every row of the batches it decodes, returning only the rows where all
// of them are TRUE. Each is one of
//
//   - a Cmp (any operator but <>) or a Between on a column whose values
//     are integers: signed integers, dates, times, timestamps, durations
//     and decimals of up to 128 bits, with literals of the column's kind
//     (KindInt, or KindDecimal in the column's scale, that fit in 64 bits)
//     or NULL. So each is an inclusive range of the column's stored
//     integer, and the conjuncts on one column intersect into one range:
//     l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
//     is days [8766, 9130];
//   - an In on such a column (a set of integers, rowfilter_sets.go);
//   - a Cmp (but <>), Between, In or Prefix on a utf8 or binary column,
//     large or not, with KindBytes literals, compared in byte order
//     (rowfilter_bytes.go);
//   - on a column kept as dictionaries of such values, any of those, and
//     also <>, IS [NOT] NULL and NOT of them, tested once per dictionary
//     entry and mapped to the rows by their indices (rowfilter_dict.go).
//
// Per batch, the tests are tried most selective first, as the batch's
// statistics estimate it (integers: assuming values spread evenly between
// its bounds; strings: by the kind of test); a test its bounds prove TRUE
// on every row is not evaluated. The first test walks every row, the
// others only the rows still selected. The columns the query returns are
// decoded only once the selection is known, and only its rows are kept
// (internal/take).
// Decimals the cache narrowed to 64 bits are compared before they are
// widened, and widened only for the rows kept.

// rowRange is a conjunct of a row filter: column col holds an integer in
// [lo, hi]. lo > hi selects nothing (a NULL literal, or an empty range),
// unless a side is open. openLo and openHi say a side is unbounded: lo or
// hi is then the extreme int64, and decimal128 values beyond it pass too;
// [1, 0] with openLo is "below every int64" (x < MinInt64).
type rowRange struct {
	col            int
	lo, hi         int64
	openLo, openHi bool
}

// empty reports whether no value lies in the range.
func (r rowRange) empty() bool { return r.lo > r.hi && !r.openLo && !r.openHi }

// rowTest is one compiled conjunct of a row filter.
type rowTest interface {
	column() int
	// estimate guesses the share of a batch's rows that pass from the
	// column's statistics, and reports whether they prove every row does.
	estimate(s ColumnStats) (share float64, all bool)
	// keep returns the rows of sel that pass: sel holds ascending row
	// numbers, or, when all is true, is scratch of n for every row.
	keep(c *filterCol, sel []int32, all bool, n int) []int32
}

// RowFilterable reports whether p can be one of [ScanOptions.Rows] for a
// table of this schema.
func RowFilterable(schema *arrow.Schema, p Predicate) bool {
	_, ok := compileTest(schema, p)
	return ok
}

func compileTest(schema *arrow.Schema, p Predicate) (rowTest, bool) {
	if d, ok := dictTestOf(schema, p); ok {
		return d, true
	}
	if r, ok := rangeOf(schema, p); ok {
		return r, true
	}
	if s, ok := setOf(schema, p); ok {
		return s, true
	}
	if k, ok := keyTestOf(schema, p); ok {
		return k, true
	}
	return bytesTestOf(schema, p)
}

// rowTests compiles a row filter, the ranges on one column intersected
// into one.
func rowTests(schema *arrow.Schema, rows []Predicate) ([]rowTest, error) {
	var out []rowTest
	for _, p := range rows {
		t, ok := compileTest(schema, p)
		if !ok {
			return nil, fmt.Errorf("row filter %s: not a comparison of an integer, temporal, decimal, string or binary column with constants of its type", p)
		}
		r, isRange := t.(rowRange)
		i := slices.IndexFunc(out, func(o rowTest) bool {
			or, ok := o.(rowRange)
			return ok && isRange && or.col == r.col
		})
		if i < 0 {
			out = append(out, t)
			continue
		}
		o := out[i].(rowRange)
		o.lo, o.hi = max(o.lo, r.lo), min(o.hi, r.hi)
		o.openLo, o.openHi = o.openLo && r.openLo, o.openHi && r.openHi
		out[i] = o
	}
	return out, nil
}

func (r rowRange) column() int { return r.col }

func (r rowRange) keep(c *filterCol, sel []int32, all bool, n int) []int32 {
	if c.isNarrow {
		return selectInts(c.narrow.vals, c.narrow.validBytes(), 0, r, sel, all, n)
	}
	return selectRows(c.arr, r, sel, all)
}

// noRows is a range nothing lies in.
func noRows(col int) rowRange { return rowRange{col: col, lo: 1, hi: 0} }

func rangeOf(schema *arrow.Schema, p Predicate) (rowRange, bool) {
	switch p := p.(type) {
	case Cmp:
		kind, ok := integerColumn(schema, p.Col)
		if !ok || p.Op == Ne {
			return rowRange{}, false
		}
		v, null, ok := integerValue(p.Val, kind)
		switch {
		case !ok:
			return rowRange{}, false
		case null:
			return noRows(p.Col), true
		}
		r := rowRange{col: p.Col, lo: math.MinInt64, hi: math.MaxInt64}
		switch p.Op {
		case Eq:
			r.lo, r.hi = v, v
		case Lt:
			r.openLo = true
			if v == math.MinInt64 { // only decimals below 64 bits
				r.lo, r.hi = 1, 0
			} else {
				r.hi = v - 1
			}
		case Le:
			r.openLo, r.hi = true, v
		case Gt:
			r.openHi = true
			if v == math.MaxInt64 { // only decimals above 64 bits
				r.lo, r.hi = 1, 0
			} else {
				r.lo = v + 1
			}
		case Ge:
			r.openHi, r.lo = true, v
		default:
			return rowRange{}, false
		}
		return r, true
	case Between:
		kind, ok := integerColumn(schema, p.Col)
		if !ok {
			return rowRange{}, false
		}
		lo, nullLo, ok1 := integerValue(p.Lo, kind)
		hi, nullHi, ok2 := integerValue(p.Hi, kind)
		switch {
		case !ok1 || !ok2:
			return rowRange{}, false
		case nullLo || nullHi:
			return noRows(p.Col), true
		}
		return rowRange{col: p.Col, lo: lo, hi: hi}, true
	}
	return rowRange{}, false
}

// integerColumn reports whether column col holds integers the row filter
// compares, and the Kind of their literals.
func integerColumn(schema *arrow.Schema, col int) (Kind, bool) {
	if col < 0 || col >= schema.NumFields() {
		return 0, false
	}
	switch schema.Field(col).Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64,
		arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return KindInt, true
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		return KindDecimal, true
	}
	return 0, false
}

// integerValue is v as a 64-bit integer of kind; ok is false when v is of
// another kind or does not fit.
func integerValue(v Value, kind Kind) (n int64, null, ok bool) {
	switch {
	case v.IsNull():
		return 0, true, true
	case v.Kind != kind:
		return 0, false, false
	case kind == KindInt:
		return v.I, false, true
	}
	if len(v.S) != decimalWidth {
		return 0, false, false
	}
	b := decimalBig(v.S)
	if !b.IsInt64() {
		return 0, false, false
	}
	return b.Int64(), false, true
}

// estimate estimates the share of a batch's rows in r from the column's
// statistics, and whether the bounds prove every row is in it.
func (r rowRange) estimate(s ColumnStats) (share float64, all bool) {
	if r.empty() || s.AllNull() {
		return 0, false
	}
	kind := KindInt
	if s.Min.Kind == KindDecimal {
		kind = KindDecimal
	}
	mn, _, ok1 := integerValue(s.Min, kind)
	mx, _, ok2 := integerValue(s.Max, kind)
	if !s.HasBounds || !ok1 || !ok2 || mn > mx {
		return 1, false
	}
	if mn >= r.lo && mx <= r.hi {
		return 1, s.Nulls == 0
	}
	lo, hi := max(mn, r.lo), min(mx, r.hi)
	if lo > hi {
		return 0, false
	}
	return (float64(hi) - float64(lo) + 1) / (float64(mx) - float64(mn) + 1), false
}

// selectRows keeps the rows of sel (ascending indices into arr; all rows
// when all is true, sel then being scratch of at least arr.Len()) whose
// value lies in r and is not NULL, and returns them.
func selectRows(arr arrow.Array, r rowRange, sel []int32, all bool) []int32 {
	d := arr.Data()
	off := d.Offset()
	var valid []byte
	if arr.NullN() > 0 {
		valid = arr.NullBitmapBytes()
	}
	vals := d.Buffers()[1].Bytes()
	switch arr.DataType().ID() {
	case arrow.INT8:
		return selectInts(arrow.GetData[int8](vals)[off:], valid, off, r, sel, all, arr.Len())
	case arrow.INT16:
		return selectInts(arrow.GetData[int16](vals)[off:], valid, off, r, sel, all, arr.Len())
	case arrow.INT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32:
		return selectInts(arrow.GetData[int32](vals)[off:], valid, off, r, sel, all, arr.Len())
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL64:
		return selectInts(arrow.GetData[int64](vals)[off:], valid, off, r, sel, all, arr.Len())
	case arrow.DECIMAL128:
		return selectWide(arrow.GetData[decimal128.Num](vals)[off:], valid, off, r, sel, all, arr.Len())
	}
	panic(fmt.Sprintf("cache: row filter on a %s column", arr.DataType()))
}

// inRange is 1 when x lies in [lo, lo+span], else 0, without a branch:
// x-lo wraps around to a large unsigned number below lo.
func inRange(x, lo int64, span uint64) int {
	if uint64(x-lo) <= span {
		return 1
	}
	return 0
}

func selectInts[T int8 | int16 | int32 | int64](vals []T, valid []byte, off int, r rowRange, sel []int32, all bool, n int) []int32 {
	if r.lo > r.hi { // nothing, or only decimals outside 64 bits
		return sel[:0]
	}
	lo, span := r.lo, uint64(r.hi-r.lo)
	k := 0
	switch {
	case all && valid == nil:
		sel = sel[:n]
		for i, v := range vals[:n] {
			sel[k] = int32(i)
			k += inRange(int64(v), lo, span)
		}
	case all:
		sel = sel[:n]
		for i, v := range vals[:n] {
			sel[k] = int32(i)
			k += inRange(int64(v), lo, span) & bit(valid, off+i)
		}
	case valid == nil:
		for _, i := range sel {
			sel[k] = i
			k += inRange(int64(vals[i]), lo, span)
		}
	default:
		for _, i := range sel {
			sel[k] = i
			k += inRange(int64(vals[i]), lo, span) & bit(valid, off+int(i))
		}
	}
	return sel[:k]
}

// selectWide is selectInts over 128-bit values: a value outside 64 bits
// lies in a range only on its open side.
func selectWide(vals []decimal128.Num, valid []byte, off int, r rowRange, sel []int32, all bool, n int) []int32 {
	if r.empty() {
		return sel[:0]
	}
	lo, span := r.lo, uint64(r.hi-r.lo)
	in := func(i int) bool {
		if valid != nil && bit(valid, off+i) == 0 {
			return false
		}
		v := vals[i]
		switch {
		case v.HighBits() == int64(v.LowBits())>>63:
			return r.lo <= r.hi && inRange(int64(v.LowBits()), lo, span) == 1
		case v.HighBits() < 0:
			return r.openLo
		}
		return r.openHi
	}
	return keepWhere(in, sel, all, n)
}

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bit is bit i of a bitmap as 0 or 1.
func bit(b []byte, i int) int { return int(b[i>>3]>>(i&7)) & 1 }
