package cache

import (
	"bytes"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// ColumnStats summarizes one column of one batch.
//
// Rows and Nulls are exact (for dictionary arrays Nulls counts rows whose
// index is null or selects a null dictionary entry). When HasBounds is true,
// every non-null value v satisfies Min <= v <= Max in [Compare]'s order; Min
// and Max are values that occur in the column, except for dictionary arrays,
// whose bounds cover the whole dictionary (see [ComputeStats]), and a NaN
// bound is the canonical NaN whatever the sign and payload of the NaN that
// occurs (all NaNs are one value in the order). HasBounds is
// false for all-null and empty columns and for types without an order.
type ColumnStats struct {
	Rows, Nulls int64
	HasBounds   bool
	Min, Max    Value
}

// AllNull reports whether no row of the column holds a value (true for an
// empty column).
func (s ColumnStats) AllNull() bool { return s.Nulls == s.Rows }

// ComputeStats computes the statistics of arr, which may be a slice.
//
// Bounds are computed for integers, floats (total order, see [floatKey]),
// decimals, strings and binary of every layout (byte order), fixed-size
// binary, dates, times, timestamps, durations and booleans, and for
// dictionary arrays of those (bounds over the whole dictionary, a
// conservative superset of the values the indices select). Other types,
// extension types included, get Rows and Nulls only. Min and Max never alias
// arr's buffers.
func ComputeStats(arr arrow.Array) ColumnStats {
	s := ColumnStats{Rows: int64(arr.Len()), Nulls: int64(arr.NullN())}
	if d, ok := arr.(*array.Dictionary); ok {
		return dictStats(d, s)
	}
	if s.AllNull() {
		return s
	}
	v := validity{off: arr.Data().Offset()}
	if s.Nulls > 0 {
		v.bits = arr.NullBitmapBytes()
	}
	s.Min, s.Max, s.HasBounds = bounds(arr, v)
	return s
}

// bounds dispatches on the array's concrete type to a tight loop.
func bounds(arr arrow.Array, v validity) (lo, hi Value, ok bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return intBounds(a.Values(), v)
	case *array.Int16:
		return intBounds(a.Values(), v)
	case *array.Int32:
		return intBounds(a.Values(), v)
	case *array.Int64:
		return intBounds(a.Values(), v)
	case *array.Date32:
		return intBounds(a.Values(), v)
	case *array.Date64:
		return intBounds(a.Values(), v)
	case *array.Time32:
		return intBounds(a.Values(), v)
	case *array.Time64:
		return intBounds(a.Values(), v)
	case *array.Timestamp:
		return intBounds(a.Values(), v)
	case *array.Duration:
		return intBounds(a.Values(), v)
	case *array.Uint8:
		return uintBounds(a.Values(), v)
	case *array.Uint16:
		return uintBounds(a.Values(), v)
	case *array.Uint32:
		return uintBounds(a.Values(), v)
	case *array.Uint64:
		return uintBounds(a.Values(), v)
	case *array.Float16:
		return float16Bounds(a.Values(), v)
	case *array.Float32:
		return floatBounds(a.Values(), v)
	case *array.Float64:
		return floatBounds(a.Values(), v)
	case *array.Decimal32:
		return decimalIntBounds(a.Values(), v)
	case *array.Decimal64:
		return decimalIntBounds(a.Values(), v)
	case *array.Decimal128:
		return lessBounds(a.Values(), v, Decimal128)
	case *array.Decimal256:
		return lessBounds(a.Values(), v, Decimal256)
	case *array.Boolean:
		return boolBounds(a, v)
	case *array.String:
		return varBytesBounds(a.ValueOffsets(), dataBuffer(a), v)
	case *array.LargeString:
		return varBytesBounds(a.ValueOffsets(), dataBuffer(a), v)
	case *array.Binary:
		return varBytesBounds(a.ValueOffsets(), dataBuffer(a), v)
	case *array.LargeBinary:
		return varBytesBounds(a.ValueOffsets(), dataBuffer(a), v)
	case *array.StringView:
		return bytesBounds(a.Len(), v, a.Value, strings.Compare)
	case *array.BinaryView:
		return bytesBounds(a.Len(), v, a.Value, bytes.Compare)
	case *array.FixedSizeBinary:
		return bytesBounds(a.Len(), v, a.Value, bytes.Compare)
	}
	return Value{}, Value{}, false
}

// validity reads a validity bitmap at the array's offset; nil bits means
// every row is valid.
type validity struct {
	bits []byte
	off  int
}

func (v validity) valid(i int) bool { return bitutil.BitIsSet(v.bits, v.off+i) }

// first returns the index of the first valid row (there is one: callers
// handle all-null arrays before).
func (v validity) first(n int) int {
	for i := range n {
		if v.bits == nil || v.valid(i) {
			return i
		}
	}
	panic("cache: bounds of an all-null array")
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// minMax is the hot loop shared by every integer-like type.
func minMax[T signed | unsigned](vals []T, v validity) (lo, hi T) {
	i := v.first(len(vals))
	lo, hi = vals[i], vals[i]
	if v.bits == nil {
		for _, x := range vals[i+1:] {
			lo = min(lo, x)
			hi = max(hi, x)
		}
		return lo, hi
	}
	for j := i + 1; j < len(vals); j++ {
		if v.valid(j) {
			lo = min(lo, vals[j])
			hi = max(hi, vals[j])
		}
	}
	return lo, hi
}

func intBounds[T signed](vals []T, v validity) (Value, Value, bool) {
	lo, hi := minMax(vals, v)
	return Int(int64(lo)), Int(int64(hi)), true
}

func uintBounds[T unsigned](vals []T, v validity) (Value, Value, bool) {
	lo, hi := minMax(vals, v)
	return Uint(uint64(lo)), Uint(uint64(hi)), true
}

func decimalIntBounds[T decimal.Decimal32 | decimal.Decimal64](vals []T, v validity) (Value, Value, bool) {
	lo, hi := minMax(vals, v)
	return DecimalInt(int64(lo)), DecimalInt(int64(hi)), true
}

// keyMinMax tracks float bounds as [floatKey]s so that NaN and -0.0 land
// where the total order puts them.
type keyMinMax struct{ lo, hi uint64 }

func (m *keyMinMax) add(k uint64) {
	m.lo = min(m.lo, k)
	m.hi = max(m.hi, k)
}

func (m keyMinMax) values() (Value, Value, bool) {
	return Float(keyFloat(m.lo)), Float(keyFloat(m.hi)), true
}

// keyFloat inverts [floatKey] (every NaN key decodes to the canonical NaN).
func keyFloat(k uint64) float64 {
	if k == math.MaxUint64 {
		return math.NaN()
	}
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

func floatBounds[T float32 | float64](vals []T, v validity) (Value, Value, bool) {
	m := keyMinMax{lo: math.MaxUint64}
	if v.bits == nil {
		for _, x := range vals {
			m.add(floatKey(float64(x)))
		}
	} else {
		for i, x := range vals {
			if v.valid(i) {
				m.add(floatKey(float64(x)))
			}
		}
	}
	return m.values()
}

func float16Bounds(vals []float16.Num, v validity) (Value, Value, bool) {
	m := keyMinMax{lo: math.MaxUint64}
	for i, x := range vals {
		if v.bits == nil || v.valid(i) {
			m.add(floatKey(float64(x.Float32())))
		}
	}
	return m.values()
}

// lessBounds scans values ordered by their own Less (decimal128 and
// decimal256), converting the two winners with toValue.
func lessBounds[T interface{ Less(T) bool }](vals []T, v validity, toValue func(T) Value) (Value, Value, bool) {
	i := v.first(len(vals))
	lo, hi := vals[i], vals[i]
	for j := i + 1; j < len(vals); j++ {
		if v.bits == nil || v.valid(j) {
			if vals[j].Less(lo) {
				lo = vals[j]
			} else if hi.Less(vals[j]) {
				hi = vals[j]
			}
		}
	}
	return toValue(lo), toValue(hi), true
}

func boolBounds(a *array.Boolean, v validity) (Value, Value, bool) {
	var seen [2]bool
	for i := range a.Len() {
		if v.bits == nil || v.valid(i) {
			seen[b2i(a.Value(i))] = true
			if seen[0] && seen[1] {
				break
			}
		}
	}
	return Bool(!seen[0]), Bool(seen[1]), true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dataBuffer is the value buffer of a variable-length binary array, indexed
// by absolute offsets.
func dataBuffer(a arrow.Array) []byte {
	if buf := a.Data().Buffers()[2]; buf != nil {
		return buf.Bytes()
	}
	return nil
}

// varBytesBounds scans offsets (already sliced to the array, len n+1) over
// data. It tracks positions, not copies, and copies the two winners once.
func varBytesBounds[O int32 | int64](offs []O, data []byte, v validity) (Value, Value, bool) {
	n := len(offs) - 1
	i := v.first(n)
	lo := data[offs[i]:offs[i+1]]
	hi := lo
	for j := i + 1; j < n; j++ {
		if v.bits != nil && !v.valid(j) {
			continue
		}
		x := data[offs[j]:offs[j+1]]
		if bytes.Compare(x, lo) < 0 {
			lo = x
		} else if bytes.Compare(x, hi) > 0 {
			hi = x
		}
	}
	return Bytes(lo), Bytes(hi), true
}

// bytesBounds scans n values read through value: views and fixed-size
// binary, whose values are not one run of offsets. compare is
// bytes.Compare or strings.Compare, so string views are read without a
// copy per value; Bytes copies the two winners out of the array.
func bytesBounds[T string | []byte](n int, v validity, value func(int) T, compare func(a, b T) int) (Value, Value, bool) {
	i := v.first(n)
	lo := value(i)
	hi := lo
	for j := i + 1; j < n; j++ {
		if v.bits != nil && !v.valid(j) {
			continue
		}
		x := value(j)
		if compare(x, lo) < 0 {
			lo = x
		} else if compare(x, hi) > 0 {
			hi = x
		}
	}
	return Bytes([]byte(lo)), Bytes([]byte(hi)), true
}

// dictStats counts logical nulls exactly and takes bounds from the whole
// dictionary: cheaper than gathering the selected values, and sound for
// pruning since it only widens [Min, Max].
func dictStats(d *array.Dictionary, s ColumnStats) ColumnStats {
	dict := d.Dictionary()
	if dict.NullN() > 0 {
		s.Nulls = 0
		for i := range d.Len() {
			if d.IsNull(i) || dict.IsNull(d.GetValueIndex(i)) {
				s.Nulls++
			}
		}
	}
	if s.AllNull() {
		return s
	}
	ds := ComputeStats(dict)
	s.HasBounds, s.Min, s.Max = ds.HasBounds, ds.Min, ds.Max
	return s
}
