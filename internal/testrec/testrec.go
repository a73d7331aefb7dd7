// Package testrec builds Arrow records for tests: every type arrow-go
// supports, with nulls, from a fixed seed, so that codecs, interop and
// fuzz seeds exercise the same data.
package testrec

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AllTypes returns a schema with one field per type family quiver writes.
func AllTypes() *arrow.Schema {
	dictStr := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	fields := []arrow.Field{
		{Name: "null", Type: arrow.Null, Nullable: true},
		{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec32", Type: &arrow.Decimal32Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "dec64", Type: &arrow.Decimal64Type{Precision: 18, Scale: 3}, Nullable: true},
		{Name: "dec128", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}, Nullable: true},
		{Name: "dec256", Type: &arrow.Decimal256Type{Precision: 76, Scale: 5}, Nullable: true},
		{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "date64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "time32", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "time64", Type: arrow.FixedWidthTypes.Time64ns, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "dur", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true},
		{Name: "ivl_m", Type: arrow.FixedWidthTypes.MonthInterval, Nullable: true},
		{Name: "ivl_dt", Type: arrow.FixedWidthTypes.DayTimeInterval, Nullable: true},
		{Name: "ivl_mdn", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}, Nullable: true},
		{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "lstr", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "strview", Type: arrow.BinaryTypes.StringView, Nullable: true},
		{Name: "binview", Type: arrow.BinaryTypes.BinaryView, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "llist", Type: arrow.LargeListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "listview", Type: arrow.ListViewOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "llistview", Type: arrow.LargeListViewOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "fsl", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), Nullable: true},
		{Name: "struct", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		), Nullable: true},
		{Name: "map", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "sunion", Type: arrow.SparseUnionOf([]arrow.Field{
			{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		}, []arrow.UnionTypeCode{5, 7})},
		{Name: "dunion", Type: arrow.DenseUnionOf([]arrow.Field{
			{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		}, []arrow.UnionTypeCode{0, 1})},
		{Name: "ree", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)},
		{Name: "dict", Type: dictStr, Nullable: true},
		{Name: "listdict", Type: arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Int64}), Nullable: true},
	}
	md := arrow.NewMetadata([]string{"origin"}, []string{"quiver testrec"})
	return arrow.NewSchema(fields, &md)
}

// Build returns a record of AllTypes with n rows, about one value in
// five null, from seed.
func Build(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	schema := AllTypes()
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	r := rand.New(rand.NewPCG(seed, 7))
	for row := range n {
		for i, f := range schema.Fields() {
			appendValue(b.Field(i), f.Type, r, row)
		}
	}
	return b.NewRecordBatch()
}

func word(r *rand.Rand) string {
	words := []string{"arrow", "quiver", "lz4", "zstd", "a fairly long string value past twelve bytes", "", "x"}
	return words[r.IntN(len(words))]
}

// appendValue appends one random value (or a null) of type dt.
func appendValue(bld array.Builder, dt arrow.DataType, r *rand.Rand, row int) {
	if r.IntN(5) == 0 && dt.ID() != arrow.SPARSE_UNION && dt.ID() != arrow.DENSE_UNION && dt.ID() != arrow.RUN_END_ENCODED {
		bld.AppendNull()
		return
	}
	switch b := bld.(type) {
	case *array.NullBuilder:
		b.AppendNull()
	case *array.BooleanBuilder:
		b.Append(r.IntN(2) == 0)
	case *array.Int8Builder:
		b.Append(int8(r.Int()))
	case *array.Int16Builder:
		b.Append(int16(r.Int()))
	case *array.Int32Builder:
		b.Append(int32(r.Int()))
	case *array.Int64Builder:
		b.Append(r.Int64())
	case *array.Uint8Builder:
		b.Append(uint8(r.Int()))
	case *array.Uint64Builder:
		b.Append(r.Uint64())
	case *array.Float16Builder:
		b.Append(float16.New(r.Float32()))
	case *array.Float32Builder:
		b.Append(r.Float32())
	case *array.Float64Builder:
		b.Append(r.NormFloat64())
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(r.Int32N(1e8)))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(r.Int64N(1e17)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(r.Int64()))
	case *array.Decimal256Builder:
		b.Append(decimal256.FromI64(r.Int64()))
	case *array.Date32Builder:
		b.Append(arrow.Date32(r.Int32N(30000)))
	case *array.Date64Builder:
		b.Append(arrow.Date64(r.Int64N(1e12) / 86400000 * 86400000))
	case *array.Time32Builder:
		b.Append(arrow.Time32(r.Int32N(86400000)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(r.Int64N(86400e9)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(r.Int64N(2e15)))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(r.Int64N(1e9)))
	case *array.MonthIntervalBuilder:
		b.Append(arrow.MonthInterval(r.Int32N(100)))
	case *array.DayTimeIntervalBuilder:
		b.Append(arrow.DayTimeInterval{Days: r.Int32N(100), Milliseconds: r.Int32N(1000)})
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(arrow.MonthDayNanoInterval{Months: 1, Days: r.Int32N(30), Nanoseconds: r.Int64()})
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte(fmt.Sprintf("%05d", row%100000)))
	case *array.StringBuilder:
		b.Append(word(r))
	case *array.LargeStringBuilder:
		b.Append(word(r))
	case *array.StringViewBuilder:
		b.Append(word(r))
	case *array.BinaryBuilder:
		b.Append([]byte(word(r)))
	case *array.BinaryViewBuilder:
		b.Append([]byte(word(r)))
	case *array.MapBuilder:
		b.Append(true)
		for k := range r.IntN(3) {
			b.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
			b.ItemBuilder().(*array.Int32Builder).Append(int32(r.Int()))
		}
	case *array.ListBuilder:
		b.Append(true)
		for range r.IntN(4) {
			appendValue(b.ValueBuilder(), dt.(*arrow.ListType).Elem(), r, row)
		}
	case *array.LargeListBuilder:
		b.Append(true)
		for range r.IntN(4) {
			appendValue(b.ValueBuilder(), dt.(*arrow.LargeListType).Elem(), r, row)
		}
	case *array.ListViewBuilder:
		k := r.IntN(4)
		b.AppendWithSize(true, k)
		for range k {
			appendValue(b.ValueBuilder(), dt.(*arrow.ListViewType).Elem(), r, row)
		}
	case *array.LargeListViewBuilder:
		k := r.IntN(4)
		b.AppendWithSize(true, k)
		for range k {
			appendValue(b.ValueBuilder(), dt.(*arrow.LargeListViewType).Elem(), r, row)
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		for range 3 {
			appendValue(b.ValueBuilder(), arrow.PrimitiveTypes.Float32, r, row)
		}
	case *array.StructBuilder:
		b.Append(true)
		for i, f := range dt.(*arrow.StructType).Fields() {
			appendValue(b.FieldBuilder(i), f.Type, r, row)
		}
	case *array.SparseUnionBuilder:
		ut := dt.(*arrow.SparseUnionType)
		child := r.IntN(2)
		b.Append(ut.TypeCodes()[child])
		for i, f := range ut.Fields() {
			if i == child {
				appendValue(b.Child(i), f.Type, r, row)
			} else {
				b.Child(i).AppendEmptyValue()
			}
		}
	case *array.DenseUnionBuilder:
		ut := dt.(*arrow.DenseUnionType)
		child := r.IntN(2)
		b.Append(ut.TypeCodes()[child])
		appendValue(b.Child(child), ut.Fields()[child].Type, r, row)
	case *array.RunEndEncodedBuilder:
		if row > 0 && r.IntN(2) == 0 {
			b.ContinueRun(1) // runs longer than one row
			return
		}
		b.Append(1)
		b.ValueBuilder().(*array.StringBuilder).Append(word(r))
	case *array.BinaryDictionaryBuilder:
		if err := b.AppendString(word(r)); err != nil {
			panic(err)
		}
	case *array.Int64DictionaryBuilder:
		if err := b.Append(r.Int64N(20)); err != nil {
			panic(err)
		}
	default:
		panic(fmt.Sprintf("testrec: no generator for %T (%s)", bld, dt))
	}
}

// SeedGroups are groups of AllTypes' columns that together cover every
// type family, each small enough for a fuzz seed of a few hundred bytes:
// the fuzzer mutates and minimizes every input it keeps, and seeds of tens
// of kilobytes (all of AllTypes in one schema) leave it minimizing for
// minutes instead of running thousands of inputs a second.
var SeedGroups = [][]string{
	{"i64", "str"},
	{"null", "bool", "i8"}, {"u64", "f16"}, {"dec32", "dec256"}, {"ts", "ivl_mdn"},
	{"fsb", "lstr"}, {"strview", "binview"},
	{"list", "fsl"}, {"listview"}, {"struct"}, {"map"},
	{"sunion"}, {"dunion"}, {"ree"}, {"dict"}, {"listdict"},
}

// Tiny returns rows rows of the named AllTypes columns, from seed, with
// no schema metadata: a fuzz seed's record.
func Tiny(mem memory.Allocator, rows int, seed uint64, names ...string) arrow.RecordBatch {
	all := AllTypes()
	fields := make([]arrow.Field, len(names))
	for i, name := range names {
		idx := all.FieldIndices(name)
		if len(idx) != 1 {
			panic(fmt.Sprintf("testrec: no column %q", name))
		}
		fields[i] = all.Field(idx[0])
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	r := rand.New(rand.NewPCG(seed, 7))
	for row := range rows {
		for i, f := range fields {
			appendValue(b.Field(i), f.Type, r, row)
		}
	}
	return b.NewRecordBatch()
}
