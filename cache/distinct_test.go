package cache

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/hll"
	"github.com/quiverdb/quiver/internal/datagen"
)

// distinctTypes are the column types the per-type estimate test covers,
// each with a way to append the k-th of many distinct values.
var distinctTypes = []struct {
	dt  arrow.DataType
	add func(b array.Builder, k int)
}{
	{arrow.PrimitiveTypes.Int32, func(b array.Builder, k int) { b.(*array.Int32Builder).Append(int32(k) - 500_000) }},
	{arrow.PrimitiveTypes.Int64, func(b array.Builder, k int) { b.(*array.Int64Builder).Append(int64(k) << 20) }},
	{arrow.PrimitiveTypes.Uint64, func(b array.Builder, k int) { b.(*array.Uint64Builder).Append(math.MaxUint64 - uint64(k)) }},
	{arrow.PrimitiveTypes.Float64, func(b array.Builder, k int) { b.(*array.Float64Builder).Append(float64(k) / 3) }},
	{arrow.PrimitiveTypes.Float32, func(b array.Builder, k int) { b.(*array.Float32Builder).Append(float32(k) + 0.5) }},
	{arrow.FixedWidthTypes.Date32, func(b array.Builder, k int) { b.(*array.Date32Builder).Append(arrow.Date32(k)) }},
	{arrow.FixedWidthTypes.Timestamp_us, func(b array.Builder, k int) { b.(*array.TimestampBuilder).Append(arrow.Timestamp(k) * 1_000_000) }},
	{&arrow.Decimal64Type{Precision: 15, Scale: 2}, func(b array.Builder, k int) { b.(*array.Decimal64Builder).Append(decimal.Decimal64(k) * 100) }},
	{&arrow.Decimal128Type{Precision: 38, Scale: 2}, func(b array.Builder, k int) {
		b.(*array.Decimal128Builder).Append(decimal128.New(int64(k%7), uint64(k))) // past 64 bits
	}},
	{&arrow.Decimal256Type{Precision: 76, Scale: 0}, func(b array.Builder, k int) {
		b.(*array.Decimal256Builder).Append(decimal256.FromBigInt(new(big.Int).Lsh(big.NewInt(int64(k)+1), 140)))
	}},
	{arrow.BinaryTypes.String, func(b array.Builder, k int) { b.(*array.StringBuilder).Append(fmt.Sprintf("value %d", k)) }},
	{arrow.BinaryTypes.LargeString, func(b array.Builder, k int) { b.(*array.LargeStringBuilder).Append(fmt.Sprint(k)) }},
	{arrow.BinaryTypes.StringView, func(b array.Builder, k int) {
		b.(*array.StringViewBuilder).Append(fmt.Sprintf("a longer string view value %d", k))
	}},
	{arrow.BinaryTypes.Binary, func(b array.Builder, k int) {
		b.(*array.BinaryBuilder).Append([]byte{byte(k), byte(k >> 8), byte(k >> 16)})
	}},
	{&arrow.FixedSizeBinaryType{ByteWidth: 4}, func(b array.Builder, k int) {
		b.(*array.FixedSizeBinaryBuilder).Append([]byte{byte(k >> 24), byte(k >> 16), byte(k >> 8), byte(k)})
	}},
	{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, func(b array.Builder, k int) {
		b.(*array.BinaryDictionaryBuilder).AppendString(fmt.Sprintf("d%d", k))
	}},
}

// TestDistinctEstimatePerType puts n distinct values of each type (a
// NULL after every seventh, the first half of them again at the end) in
// batches on two goroutines and holds the estimate within 5% (about three
// of HyperLogLog's standard errors at p = 12), n from 10^3 to 10^6.
func TestDistinctEstimatePerType(t *testing.T) {
	sizes := []int{1_000, 10_000, 100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, ty := range distinctTypes {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/n=%d", ty.dt, n), func(t *testing.T) {
				mem := checked(t)
				schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: ty.dt, Nullable: true}}, nil)
				recs := distinctBatches(mem, schema, n, ty.add)
				defer release(recs)
				c, err := New(Options{Alloc: mem, Budget: 1 << 40, Concurrency: 2})
				if err != nil {
					t.Fatal(err)
				}
				put(t, c, "t", schema, recs, TableOptions{Codec: Fixed(codec.SettingNone), Plain: true})
				st, err := c.Stats("t")
				if err != nil {
					t.Fatal(err)
				}
				got := st.Columns[0].Distinct
				if d := math.Abs(float64(got-int64(n))) / float64(n); d > 0.05 {
					t.Errorf("%d distinct values estimated %d (%.1f%% off)", n, got, 100*d)
				}
				if nulls := int64(n / 7); st.Columns[0].Nulls != nulls {
					t.Errorf("nulls %d, want %d", st.Columns[0].Nulls, nulls)
				}
			})
		}
	}
}

// distinctBatches is values 0..n-1 with a NULL after every seventh, then
// 0..n/2-1 again, in batches of 65536 rows.
func distinctBatches(mem memory.Allocator, schema *arrow.Schema, n int, add func(array.Builder, int)) []arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	rows := 0
	emit := func() {
		if rows > 0 {
			recs = append(recs, b.NewRecordBatch())
			rows = 0
		}
	}
	push := func(f func()) {
		f()
		if rows++; rows == 1<<16 {
			emit()
		}
	}
	for k := range n {
		push(func() { add(b.Field(0), k) })
		if k%7 == 6 {
			push(b.Field(0).AppendNull)
		}
	}
	for k := range n / 2 {
		push(func() { add(b.Field(0), k) })
	}
	emit()
	return recs
}

// sketchOf is the sketch Put would build from arr alone.
func sketchOf(arr arrow.Array) *hll.Sketch {
	s := &hll.Sketch{}
	var h hasher
	h.add(s, arr)
	return s
}

// TestDistinctEqualValuesHashEqual: the same values held in columns of
// different types give the same sketch, register for register, so that
// sketches of a join's two sides compare.
func TestDistinctEqualValuesHashEqual(t *testing.T) {
	mem := checked(t)
	groups := map[string][]arrow.DataType{
		"integers": {
			arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
			arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
			arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Date32,
			&arrow.Decimal32Type{Precision: 9, Scale: 0}, &arrow.Decimal64Type{Precision: 18, Scale: 0},
			&arrow.Decimal128Type{Precision: 38, Scale: 0}, &arrow.Decimal256Type{Precision: 76, Scale: 0},
		},
		"strings": {
			arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.StringView,
			arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary, arrow.BinaryTypes.BinaryView,
			&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
		},
	}
	values := map[string][]Value{
		"integers": {Int(0), Int(1), Null, Int(2), Int(3), Int(100), Int(1), Int(127)},
		"strings":  {String(""), String("a"), Null, String("bb"), String("a long string past twelve bytes"), String("a")},
	}
	for name, types := range groups {
		var first *hll.Sketch
		for _, dt := range types {
			vals := values[name]
			if dt.ID() == arrow.DECIMAL32 || dt.ID() == arrow.DECIMAL64 || dt.ID() == arrow.DECIMAL128 || dt.ID() == arrow.DECIMAL256 {
				vals = decimalsOf(vals)
			}
			if dt.ID() == arrow.FLOAT32 || dt.ID() == arrow.FLOAT64 {
				vals = floatsOf(vals)
			}
			if dt.ID() == arrow.UINT8 || dt.ID() == arrow.UINT32 || dt.ID() == arrow.UINT64 {
				vals = uintsOf(vals)
			}
			arr := makeArray(mem, dt, vals...)
			s := sketchOf(arr)
			arr.Release()
			if s.Estimate() != 6 && name == "integers" || s.Empty() {
				t.Errorf("%s: estimate %d", dt, s.Estimate())
			}
			if first == nil {
				first = s
			} else if !s.Equal(first) {
				t.Errorf("%s: the same values as %s hash otherwise", dt, types[0])
			}
		}
	}
	// Floats: -0.0 is 0, every NaN is one value, 0.5 is not 0.
	arr := makeArray(mem, arrow.PrimitiveTypes.Float64, Float(0), Float(math.Copysign(0, -1)), Float(math.NaN()),
		Float(math.Float64frombits(0xfff0000000000123)), Float(0.5))
	defer arr.Release()
	if got := sketchOf(arr).Estimate(); got != 3 {
		t.Errorf("floats {0, -0, NaN, -NaN', 0.5}: %d distinct, want 3", got)
	}
}

func decimalsOf(vals []Value) []Value {
	out := make([]Value, len(vals))
	for i, v := range vals {
		out[i] = v
		if !v.IsNull() {
			out[i] = DecimalInt(v.I)
		}
	}
	return out
}

func floatsOf(vals []Value) []Value {
	out := make([]Value, len(vals))
	for i, v := range vals {
		out[i] = v
		if !v.IsNull() {
			out[i] = Float(float64(v.I))
		}
	}
	return out
}

func uintsOf(vals []Value) []Value {
	out := make([]Value, len(vals))
	for i, v := range vals {
		out[i] = v
		if !v.IsNull() {
			out[i] = Uint(uint64(v.I))
		}
	}
	return out
}

// intBatches is one int64 column "v" holding lo..hi-1 (a NULL after
// every tenth) in batches of size rows.
func intBatches(mem memory.Allocator, lo, hi, size int) (*arrow.Schema, []arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	for k := lo; k < hi; k++ {
		b.Field(0).(*array.Int64Builder).Append(int64(k))
		if k%10 == 9 {
			b.Field(0).AppendNull()
		}
		if b.Field(0).Len() >= size || k == hi-1 {
			recs = append(recs, b.NewRecordBatch())
		}
	}
	return schema, recs
}

// TestDistinctAppendReplace: an Append's sketch is the sketch of the
// union (the same registers as one Put of every batch), Stats merges
// nulls and bounds over batches, and a Put that replaces a table
// replaces its sketch.
func TestDistinctAppendReplace(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	schema, a := intBatches(mem, 0, 20_000, 3000)
	defer release(a)
	_, b := intBatches(mem, 10_000, 30_000, 7000)
	defer release(b)
	put(t, c, "t", schema, a, TableOptions{Concurrency: 2})
	before, _ := c.snapshot("t")
	r, _ := array.NewRecordReader(schema, b)
	_, err := c.Append(context.Background(), "t", r, TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	put(t, c, "whole", schema, append(append([]arrow.RecordBatch{}, a...), b...), TableOptions{Concurrency: 1})
	appended, _ := c.snapshot("t")
	whole, _ := c.snapshot("whole")
	if !appended.columns[0].sketch.Equal(whole.columns[0].sketch) {
		t.Fatal("the appended table's sketch is not the sketch of all its batches")
	}
	if before.columns[0].sketch.Equal(appended.columns[0].sketch) {
		t.Fatal("the append changed nothing: the test proves nothing, or the old snapshot's sketch was changed")
	}
	if got := before.summary().Columns[0].Distinct; math.Abs(float64(got-20_000)) > 1000 {
		t.Fatalf("the snapshot before the append now estimates %d, want about 20000", got)
	}
	st, err := c.Stats("t")
	if err != nil {
		t.Fatal(err)
	}
	col := st.Columns[0]
	if col.Rows != 40_000+4_000 || col.Nulls != 4_000 || !col.HasBounds || col.Min != Int(0) || col.Max != Int(29_999) {
		t.Fatalf("stats %+v", col)
	}
	if math.Abs(float64(col.Distinct-30_000)) > 1500 {
		t.Fatalf("distinct %d, want about 30000", col.Distinct)
	}
	info, _ := c.Info("t")
	if info.Columns[0].Distinct != col.Distinct {
		t.Fatalf("Info says %d distinct, Stats %d", info.Columns[0].Distinct, col.Distinct)
	}

	_, small := intBatches(mem, 5, 15, 100)
	defer release(small)
	put(t, c, "t", schema, small, TableOptions{})
	if st, _ := c.Stats("t"); st.Columns[0].Distinct != 10 || st.Columns[0].Min != Int(5) {
		t.Fatalf("after replacing the table: %+v", st.Columns[0])
	}
}

// TestDistinctNullsAndTypesWithout: NULLs are not values; an all-NULL or
// empty column has 0 distinct values and no bounds; a type without a
// sketch says -1.
func TestDistinctNullsAndTypesWithout(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "some", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "none", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(`[
		{"some": null, "none": null, "list": [1]},
		{"some": 7, "none": null, "list": [2]},
		{"some": null, "none": null, "list": null},
		{"some": 7, "none": null, "list": [1]},
		{"some": 8, "none": null, "list": []}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	put(t, c, "t", schema, []arrow.RecordBatch{rec}, TableOptions{})
	st, _ := c.Stats("t")
	if got := st.Columns[0]; got.Distinct != 2 || got.Nulls != 2 || got.Min != Int(7) || got.Max != Int(8) {
		t.Errorf("some: %+v", got)
	}
	if got := st.Columns[1]; got.Distinct != 0 || got.Nulls != 5 || got.HasBounds {
		t.Errorf("none: %+v", got)
	}
	if got := st.Columns[2]; got.Distinct != -1 || got.HasBounds {
		t.Errorf("list: %+v", got)
	}
	put(t, c, "empty", schema, nil, TableOptions{})
	st, _ = c.Stats("empty")
	if got := st.Columns[0]; got.Distinct != 0 || got.Rows != 0 || got.HasBounds {
		t.Errorf("empty table: %+v", got)
	}
	if _, err := c.Stats("nope"); err == nil {
		t.Error("Stats of a missing table did not fail")
	}
}

// TestDistinctRestore: an Image carries each column's sketch, and Restore
// serves it; an Image without sketches (a store that kept none) gives
// unknown counts, and stays unknown after an Append.
func TestDistinctRestore(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := allTypesInput(mem)
	defer release(in)
	r, _ := array.NewRecordReader(in[0].Schema(), in)
	ch, err := c.PreparePut(context.Background(), "t", r, TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	img := ch.Image()
	if _, err := ch.Commit(); err != nil {
		t.Fatal(err)
	}
	want, _ := c.Stats("t")
	c2 := newCache(t, mem, 0)
	if _, err := c2.Restore(img); err != nil {
		t.Fatal(err)
	}
	got, _ := c2.Stats("t")
	known := 0
	for i := range want.Columns {
		if got.Columns[i].Distinct != want.Columns[i].Distinct {
			t.Errorf("column %d: restored %d distinct, put %d", i, got.Columns[i].Distinct, want.Columns[i].Distinct)
		}
		if want.Columns[i].Distinct > 0 {
			known++
		}
	}
	if known < 10 {
		t.Fatalf("only %d columns with a distinct count", known)
	}
	for i := range img.Columns {
		img.Columns[i].Sketch = nil
	}
	if _, err := c2.Restore(img); err != nil {
		t.Fatal(err)
	}
	more := []arrow.RecordBatch{datagen.Record(mem, 10, 9)}
	defer release(more)
	r, _ = array.NewRecordReader(in[0].Schema(), more)
	_, err = c2.Append(context.Background(), "t", r, TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	got, _ = c2.Stats("t")
	for i, col := range got.Columns {
		if col.Distinct != -1 {
			t.Errorf("column %d: %d distinct from a table restored without sketches", i, col.Distinct)
		}
	}
}

// BenchmarkSketch is the cost Put adds per column of a batch, beside
// BenchmarkComputeStats's on the same data (the same run measures both).
func BenchmarkSketch(b *testing.B) {
	const rows = 8192
	mem := memory.NewGoAllocator()
	for _, nullEvery := range []int{0, 8} {
		ib := array.NewInt64Builder(mem)
		sb := array.NewStringBuilder(mem)
		for i := range rows {
			if nullEvery > 0 && i%nullEvery == 0 {
				ib.AppendNull()
				sb.AppendNull()
				continue
			}
			ib.Append(int64(i*7919%rows) - rows/2)
			sb.Append(fmt.Sprintf("str_a_%d", i*7919%100000))
		}
		ints, strs := ib.NewArray(), sb.NewStringArray()
		ib.Release()
		sb.Release()
		for _, col := range []struct {
			name string
			arr  arrow.Array
		}{{"int64", ints}, {"string", strs}} {
			b.Run(fmt.Sprintf("type=%s/nulls=%d/what=sketch", col.name, nullEvery), func(b *testing.B) {
				var h hasher
				s := &hll.Sketch{}
				b.ReportAllocs()
				for b.Loop() {
					h.add(s, col.arr)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			})
			b.Run(fmt.Sprintf("type=%s/nulls=%d/what=stats", col.name, nullEvery), func(b *testing.B) {
				for b.Loop() {
					ComputeStats(col.arr)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			})
		}
		ints.Release()
		strs.Release()
	}
}

// TestDistinctSlices: a slice (an array with an offset, nulls at odd
// bit positions) hashes its own rows, as a fresh array of them does.
func TestDistinctSlices(t *testing.T) {
	mem := checked(t)
	var vals []Value
	for i := range 200 {
		if i%3 == 1 {
			vals = append(vals, Null)
		} else {
			vals = append(vals, Int(int64(i)))
		}
	}
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String} {
		vs := vals
		if dt.ID() == arrow.STRING {
			vs = make([]Value, len(vals))
			for i, v := range vals {
				vs[i] = v
				if !v.IsNull() {
					vs[i] = String(fmt.Sprint(v.I))
				}
			}
		}
		whole := makeArray(mem, dt, vs...)
		part := array.NewSlice(whole, 5, 150)
		fresh := makeArray(mem, dt, vs[5:150]...)
		if !sketchOf(part).Equal(sketchOf(fresh)) {
			t.Errorf("%s: a slice hashes other rows than its own", dt)
		}
		if sketchOf(part).Equal(sketchOf(whole)) {
			t.Errorf("%s: the slice and the whole array agree: the test proves nothing", dt)
		}
		whole.Release()
		part.Release()
		fresh.Release()
	}
}

// TestDistinctHashesPinned pins the hash of one value of each kind:
// sketches are stored and merged across versions, so these may change
// only with hll.Version (distinct.go).
func TestDistinctHashesPinned(t *testing.T) {
	mem := checked(t)
	for _, tc := range []struct {
		dt   arrow.DataType
		v    Value
		want uint64
	}{
		{arrow.PrimitiveTypes.Int64, Int(42), 0x810879608e4259cc},
		{arrow.PrimitiveTypes.Float64, Float(0.5), 0xb4c9fa8a0e054925},
		{arrow.BinaryTypes.String, String("quiver"), 0x856361ebfc66cc0b},
		{&arrow.Decimal128Type{Precision: 38, Scale: 0}, Decimal128(decimal128.New(1, 0)), 0x0cfbaea74a8cc0e5},
	} {
		arr := makeArray(mem, tc.dt, tc.v)
		var h hasher
		h.hash(arr)
		arr.Release()
		if len(h.hs) != 1 || h.hs[0] != tc.want {
			t.Errorf("%s %v hashes to %#x, pinned %#x", tc.dt, tc.v, h.hs, tc.want)
		}
	}
}

// TestDistinctLongBatch: a batch longer than the hash window is hashed
// window by window, to the same sketch as its rows in small pieces.
func TestDistinctLongBatch(t *testing.T) {
	mem := checked(t)
	b := array.NewInt64Builder(mem)
	for i := range 3*hashWindow + 5 {
		if i%9 == 0 {
			b.AppendNull()
		} else {
			b.Append(int64(i))
		}
	}
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	pieces := &hll.Sketch{}
	var h hasher
	for at := 0; at < arr.Len(); at += 1000 {
		part := array.NewSlice(arr, int64(at), int64(min(at+1000, arr.Len())))
		h.add(pieces, part)
		part.Release()
	}
	whole := sketchOf(arr)
	if !whole.Equal(pieces) {
		t.Fatal("a long batch's sketch differs from its pieces'")
	}
	if got := whole.Estimate(); math.Abs(float64(got)-float64(arr.Len()-arr.NullN())) > 0.05*float64(arr.Len()) {
		t.Fatalf("estimate %d for %d values", got, arr.Len()-arr.NullN())
	}
}
