package cache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

var negZero = math.Copysign(0, -1)

// sameValue is identity for test purposes: NaN equals NaN and -0.0 differs
// from +0.0.
func sameValue(a, b Value) bool {
	if a.Kind == KindFloat && b.Kind == KindFloat {
		return floatKey(a.F) == floatKey(b.F)
	}
	return a == b
}

func TestComputeStatsHand(t *testing.T) {
	nan := math.NaN()
	big100 := pow2(100)
	tests := []struct {
		name     string
		dt       arrow.DataType
		vals     []Value
		off, n   int // slice; n < 0: whole array
		nulls    int64
		min, max Value // Null: no bounds
	}{
		{"int8", arrow.PrimitiveTypes.Int8, []Value{Int(3), Null, Int(-128), Int(127), Int(0)}, 0, -1, 1, Int(-128), Int(127)},
		{"int64/slice", arrow.PrimitiveTypes.Int64, []Value{Int(100), Int(5), Int(-7), Int(9), Int(-1000)}, 1, 3, 0, Int(-7), Int(9)},
		{"int32/slice-drops-nulls", arrow.PrimitiveTypes.Int32, []Value{Null, Int(5), Int(6), Null}, 1, 2, 0, Int(5), Int(6)},
		{"int32/slice-keeps-null", arrow.PrimitiveTypes.Int32, []Value{Int(-9), Null, Int(6), Int(1), Int(99)}, 1, 3, 1, Int(1), Int(6)},
		{"uint64", arrow.PrimitiveTypes.Uint64, []Value{Uint(math.MaxUint64), Uint(0), Uint(7)}, 0, -1, 0, Uint(0), Uint(math.MaxUint64)},
		{"uint8/slice", arrow.PrimitiveTypes.Uint8, []Value{Uint(0), Uint(200), Null, Uint(3), Uint(255)}, 1, 3, 1, Uint(3), Uint(200)},
		{"float64/nan-negzero", arrow.PrimitiveTypes.Float64, []Value{Float(nan), Float(negZero), Float(1), Null}, 0, -1, 1, Float(negZero), Float(nan)},
		{"float64/zeros", arrow.PrimitiveTypes.Float64, []Value{Float(0), Float(negZero)}, 0, -1, 0, Float(negZero), Float(0)},
		{"float64/neg-nan-last", arrow.PrimitiveTypes.Float64, []Value{Float(negNaN), Float(math.Inf(1)), Float(-2)}, 0, -1, 0, Float(-2), Float(nan)},
		{"float64/inf", arrow.PrimitiveTypes.Float64, []Value{Float(math.Inf(1)), Float(math.Inf(-1))}, 0, -1, 0, Float(math.Inf(-1)), Float(math.Inf(1))},
		{"float32", arrow.PrimitiveTypes.Float32, []Value{Float(2.5), Float(-1.5), Float(negZero)}, 0, -1, 0, Float(-1.5), Float(2.5)},
		{"float16", arrow.FixedWidthTypes.Float16, []Value{Float(nan), Float(negZero), Float(2.5), Float(math.Inf(-1))}, 0, -1, 0, Float(math.Inf(-1)), Float(nan)},
		{"float16/zeros-slice", arrow.FixedWidthTypes.Float16, []Value{Float(-1), Float(0), Float(negZero), Float(nan)}, 1, 2, 0, Float(negZero), Float(0)},
		{"decimal32", &arrow.Decimal32Type{Precision: 9}, []Value{DecimalInt(-5), DecimalInt(7), Null}, 0, -1, 1, DecimalInt(-5), DecimalInt(7)},
		{"decimal64", &arrow.Decimal64Type{Precision: 18}, []Value{DecimalInt(math.MaxInt64), DecimalInt(math.MinInt64)}, 0, -1, 0, DecimalInt(math.MinInt64), DecimalInt(math.MaxInt64)},
		{"decimal128", &arrow.Decimal128Type{Precision: 38}, []Value{bigDecimal(big100), DecimalInt(5), bigDecimal(neg(big100))}, 0, -1, 0, bigDecimal(neg(big100)), bigDecimal(big100)},
		{"decimal256", &arrow.Decimal256Type{Precision: 76}, []Value{DecimalInt(-1), bigDecimal(pow2(200)), DecimalInt(0), bigDecimal(neg(pow2(200)))}, 0, 3, 0, DecimalInt(-1), bigDecimal(pow2(200))},
		{"string", arrow.BinaryTypes.String, []Value{String("b"), String(""), String("ab"), Null}, 0, -1, 1, String(""), String("b")},
		{"string/slice", arrow.BinaryTypes.String, []Value{String(""), String("m"), String("c"), String("z")}, 1, 2, 0, String("c"), String("m")},
		{"large_string", arrow.BinaryTypes.LargeString, []Value{String("\xff"), String("a")}, 0, -1, 0, String("a"), String("\xff")},
		{"string_view", arrow.BinaryTypes.StringView, []Value{String("a long string past the inline limit"), String("a long string"), Null, String("b")}, 1, 3, 1, String("a long string"), String("b")},
		{"binary", arrow.BinaryTypes.Binary, []Value{String("\xff"), String("\x00"), String("")}, 0, -1, 0, String(""), String("\xff")},
		{"large_binary", arrow.BinaryTypes.LargeBinary, []Value{String("x"), String("xy")}, 0, -1, 0, String("x"), String("xy")},
		{"binary_view", arrow.BinaryTypes.BinaryView, []Value{String("q"), String("abcdefghijklmnopq"), String("abcdefghijklmnopr")}, 0, -1, 0, String("abcdefghijklmnopq"), String("q")},
		{"fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 2}, []Value{String("ab"), String("\x00\xff"), String("b\x00")}, 0, -1, 0, String("\x00\xff"), String("b\x00")},
		{"date32", arrow.FixedWidthTypes.Date32, []Value{Int(19000), Int(-3)}, 0, -1, 0, Int(-3), Int(19000)},
		{"date64", arrow.FixedWidthTypes.Date64, []Value{Int(86400000), Int(0)}, 0, -1, 0, Int(0), Int(86400000)},
		{"time32", arrow.FixedWidthTypes.Time32s, []Value{Int(5), Int(3)}, 0, -1, 0, Int(3), Int(5)},
		{"time64", arrow.FixedWidthTypes.Time64us, []Value{Int(5), Null, Int(30)}, 0, -1, 1, Int(5), Int(30)},
		{"timestamp", arrow.FixedWidthTypes.Timestamp_ns, []Value{Int(-5), Int(math.MaxInt64)}, 0, -1, 0, Int(-5), Int(math.MaxInt64)},
		{"duration", arrow.FixedWidthTypes.Duration_ms, []Value{Int(7), Int(-7)}, 0, -1, 0, Int(-7), Int(7)},
		{"bool/true", arrow.FixedWidthTypes.Boolean, []Value{Bool(true), Null, Bool(true)}, 0, -1, 1, Bool(true), Bool(true)},
		{"bool/both", arrow.FixedWidthTypes.Boolean, []Value{Bool(true), Bool(false)}, 0, -1, 0, Bool(false), Bool(true)},
		{"bool/slice", arrow.FixedWidthTypes.Boolean, []Value{Bool(true), Bool(false), Bool(false), Bool(true)}, 1, 2, 0, Bool(false), Bool(false)},
		{"all-null", arrow.PrimitiveTypes.Int64, []Value{Null, Null}, 0, -1, 2, Null, Null},
		{"all-null/slice", arrow.BinaryTypes.String, []Value{String("a"), Null, Null, String("b")}, 1, 2, 2, Null, Null},
		{"all-null/float", arrow.PrimitiveTypes.Float64, []Value{Null}, 0, -1, 1, Null, Null},
		{"empty", arrow.PrimitiveTypes.Int64, nil, 0, -1, 0, Null, Null},
		{"empty/slice", arrow.PrimitiveTypes.Int64, []Value{Int(1)}, 1, 0, 0, Null, Null},
		{"list/no-order", arrow.ListOf(arrow.PrimitiveTypes.Int32), []Value{Int(1), Null}, 0, -1, 1, Null, Null},
		// Nulls: one null index, one index to the dictionary's null entry.
		{"dictionary", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
			[]Value{String("m"), Null, String("c"), Null}, 0, -1, 2, String("c"), String("zzzz")},
		{"dictionary/all-null", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
			[]Value{Null, Null, String("c")}, 0, 2, 2, Null, Null},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := newAlloc(t)
			arr := makeArray(mem, tt.dt, tt.vals...)
			defer arr.Release()
			if tt.n >= 0 {
				s := array.NewSlice(arr, int64(tt.off), int64(tt.off+tt.n))
				defer s.Release()
				arr = s
			}
			got := ComputeStats(arr)
			if got.Rows != int64(arr.Len()) || got.Nulls != tt.nulls {
				t.Errorf("rows, nulls = %d, %d; want %d, %d", got.Rows, got.Nulls, arr.Len(), tt.nulls)
			}
			if wantBounds := !tt.min.IsNull(); got.HasBounds != wantBounds {
				t.Fatalf("HasBounds = %v, want %v (%+v)", got.HasBounds, wantBounds, got)
			}
			if got.HasBounds && (!sameValue(got.Min, tt.min) || !sameValue(got.Max, tt.max)) {
				t.Errorf("bounds = [%v, %v], want [%v, %v]", got.Min, got.Max, tt.min, tt.max)
			}
			if math.Signbit(tt.min.F) != math.Signbit(got.Min.F) {
				t.Errorf("Min %v has the wrong sign", got.Min)
			}
		})
	}
}

// TestComputeStatsNoAlias checks that byte bounds are copies: scribbling over
// the array's data must not change them.
func TestComputeStatsNoAlias(t *testing.T) {
	mem := newAlloc(t)
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString,
		arrow.BinaryTypes.StringView, arrow.BinaryTypes.BinaryView} {
		long := "a string long enough not to be inlined in a view"
		arr := makeArray(mem, dt, String("b"+long), String("a"+long))
		s := ComputeStats(arr)
		for _, buf := range arr.Data().Buffers()[1:] { // all but validity
			if buf != nil {
				b := buf.Bytes()
				for i := range b {
					b[i] = 'X'
				}
			}
		}
		if s.Min.S != "a"+long || s.Max.S != "b"+long {
			t.Errorf("%v: bounds alias the array: [%q, %q]", dt, s.Min.S, s.Max.S)
		}
		arr.Release()
	}
}

// TestComputeStatsRandom checks Rows, Nulls and exact bounds against the
// reference order on random columns of every type.
func TestComputeStatsRandom(t *testing.T) {
	mem := newAlloc(t)
	for _, ct := range colTypes {
		t.Run(ct.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(ct.name))))
			for iter := range 300 {
				c := genColumn(mem, r, ct, r.IntN(12))
				checkStats(t, fmt.Sprintf("iter %d", iter), c, ComputeStats(c.arr))
				c.arr.Release()
			}
		})
	}
}

func checkStats(t *testing.T, what string, c testCol, s ColumnStats) {
	t.Helper()
	var nulls int64
	var lo, hi Value
	for _, v := range c.rows {
		switch {
		case v.IsNull():
			nulls++
		case lo.IsNull():
			lo, hi = v, v
		default:
			if refTotal(v, lo) < 0 {
				lo = v
			}
			if refTotal(v, hi) > 0 {
				hi = v
			}
		}
	}
	if s.Rows != int64(len(c.rows)) || s.Nulls != nulls {
		t.Fatalf("%s: rows, nulls = %d, %d; want %d, %d (%v)", what, s.Rows, s.Nulls, len(c.rows), nulls, c.rows)
	}
	if c.ct.kind == KindNull || lo.IsNull() {
		if s.HasBounds {
			t.Fatalf("%s: unexpected bounds %+v", what, s)
		}
		return
	}
	if !s.HasBounds || s.Min.Kind != c.ct.kind || s.Max.Kind != c.ct.kind {
		t.Fatalf("%s: bounds %+v, want kind %v", what, s, c.ct.kind)
	}
	if c.ct.dt.ID() == arrow.DICTIONARY { // whole-dictionary bounds: must contain
		if refTotal(s.Min, lo) > 0 || refTotal(s.Max, hi) < 0 {
			t.Fatalf("%s: bounds [%v, %v] do not contain [%v, %v]", what, s.Min, s.Max, lo, hi)
		}
		return
	}
	if refTotal(s.Min, lo) != 0 || refTotal(s.Max, hi) != 0 {
		t.Fatalf("%s: bounds [%v, %v], want [%v, %v] (rows %v)", what, s.Min, s.Max, lo, hi, c.rows)
	}
}

// benchStats reports MB/s over the array's value (and offset) bytes.
func benchStats(b *testing.B, arr arrow.Array, bytes int) {
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	var s ColumnStats
	for b.Loop() {
		s = ComputeStats(arr)
	}
	if !s.HasBounds {
		b.Fatal("no bounds")
	}
	b.ReportMetric(float64(arr.Len())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkComputeStats(b *testing.B) {
	const rows = 8192
	mem := memory.NewGoAllocator()
	for _, nullEvery := range []int{0, 8} {
		isNull := func(i int) bool { return nullEvery > 0 && i%nullEvery == 0 }
		ib := array.NewInt64Builder(mem)
		fb := array.NewFloat64Builder(mem)
		sb := array.NewStringBuilder(mem)
		for i := range rows {
			if isNull(i) {
				ib.AppendNull()
				fb.AppendNull()
				sb.AppendNull()
				continue
			}
			ib.Append(int64(i*7919%rows) - rows/2)
			fb.Append(float64(i*7919%rows) - 0.5)
			sb.Append(fmt.Sprintf("str_a_%d", i*7919%100000))
		}
		ints, floats, strs := ib.NewArray(), fb.NewArray(), sb.NewStringArray()
		ib.Release()
		fb.Release()
		sb.Release()
		b.Run(fmt.Sprintf("type=int64/nulls=%d", nullEvery), func(b *testing.B) { benchStats(b, ints, 8*rows) })
		b.Run(fmt.Sprintf("type=float64/nulls=%d", nullEvery), func(b *testing.B) { benchStats(b, floats, 8*rows) })
		b.Run(fmt.Sprintf("type=string/nulls=%d", nullEvery), func(b *testing.B) {
			benchStats(b, strs, len(strs.ValueBytes())+4*(rows+1))
		})
		if nullEvery == 0 { // the peer: LZ4 over the same value bytes, same run
			lz4 := codec.MustNew(codec.SettingLZ4)
			for _, peer := range []struct {
				name string
				src  []byte
			}{{"int64", ints.Data().Buffers()[1].Bytes()}, {"string", strs.ValueBytes()}} {
				b.Run("peer=lz4/type="+peer.name, func(b *testing.B) {
					b.SetBytes(int64(len(peer.src)))
					dst := make([]byte, 0, lz4.CompressBound(len(peer.src)))
					for b.Loop() {
						dst = lz4.Compress(dst[:0], peer.src)
					}
					b.ReportMetric(float64(len(peer.src))/float64(len(dst)), "ratio")
				})
			}
		}
		ints.Release()
		floats.Release()
		strs.Release()
	}
}
