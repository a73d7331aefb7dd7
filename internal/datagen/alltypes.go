// Records of every Arrow type, for codecs, interop, spill and fuzz seeds.

package datagen

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
	md := arrow.NewMetadata([]string{"origin"}, []string{"quiver datagen"})
	return arrow.NewSchema(fields, &md)
}

// Record returns a record of AllTypes with n rows, each value null with
// probability 0.2 (unions and run-end encoded columns have no validity
// of their own: their children's values are), from seed: the same seed
// gives the same record.
func Record(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	return build(mem, AllTypes(), n, seed)
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
			panic(fmt.Sprintf("datagen: no column %q in AllTypes", name))
		}
		fields[i] = all.Field(idx[0])
	}
	return build(mem, arrow.NewSchema(fields, nil), rows, seed)
}

// build appends n random rows of schema, row by row, from one random
// stream seeded by seed.
func build(mem memory.Allocator, schema *arrow.Schema, n int, seed uint64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	r := rand.New(rand.NewPCG(seed, 7))
	for range n {
		for i, f := range schema.Fields() {
			AppendRandom(b.Field(i), f.Type, recordNulls, r)
		}
	}
	return b.NewRecordBatch()
}

// recordNulls is the null fraction of Record and Tiny, at every level.
const recordNulls = 0.2
