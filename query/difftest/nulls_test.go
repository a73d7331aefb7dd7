//go:build duckdb

package difftest

import (
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Table t: every engine type, NULLs in every column but id.
const (
	nullsRows  = 3000
	nullsBatch = 256
)

var nullsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},                                    // 0..n-1, ascending
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},                     // -1000..1000; NULL in all of batch 2
	{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},                     // 0..19
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},                     // 0..5, a group key
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},                   // multiples of 1/8, so sums are exact
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true}, // -99999.99..99999.99
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},                       // words sharing prefixes, "" and non-ASCII
	{Name: "g", Type: arrow.BinaryTypes.String, Nullable: true},                       // g0..g4, a group key
	{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},                  // 1992-01-01..1998-12-31
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

var words = []string{"", "a", "ab", "abc", "abd", "b", "ba", "bab", "zeta", "Alpha", "alpha", "über", "x y", "a%b", "_c"}

// nullsTable builds t from a fixed seed, in nullsBatch-row batches.
func nullsTable(mem memory.Allocator) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(7, 11))
	null := func() bool { return rng.IntN(7) == 0 }
	var recs []arrow.RecordBatch
	for start := 0; start < nullsRows; start += nullsBatch {
		b := array.NewRecordBuilder(mem, nullsSchema)
		for id := start; id < min(start+nullsBatch, nullsRows); id++ {
			b.Field(0).(*array.Int64Builder).Append(int64(id))
			appendOr(b.Field(1), null() || id/nullsBatch == 2, func(x array.Builder) {
				x.(*array.Int64Builder).Append(rng.Int64N(2001) - 1000)
			})
			appendOr(b.Field(2), null(), func(x array.Builder) { x.(*array.Int32Builder).Append(rng.Int32N(20)) })
			appendOr(b.Field(3), null(), func(x array.Builder) { x.(*array.Int64Builder).Append(rng.Int64N(6)) })
			appendOr(b.Field(4), null(), func(x array.Builder) {
				x.(*array.Float64Builder).Append(float64(rng.Int64N(16001)-8000) / 8)
			})
			appendOr(b.Field(5), null(), func(x array.Builder) {
				x.(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(19_999_999) - 9_999_999))
			})
			appendOr(b.Field(6), null(), func(x array.Builder) { x.(*array.StringBuilder).Append(words[rng.IntN(len(words))]) })
			appendOr(b.Field(7), null(), func(x array.Builder) { x.(*array.StringBuilder).Append("g" + string(rune('0'+rng.IntN(5)))) })
			appendOr(b.Field(8), null(), func(x array.Builder) { x.(*array.Date32Builder).Append(arrow.Date32(8035 + rng.IntN(2557))) })
			appendOr(b.Field(9), null(), func(x array.Builder) { x.(*array.BooleanBuilder).Append(rng.IntN(2) == 0) })
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

func appendOr(b array.Builder, isNull bool, value func(array.Builder)) {
	if isNull {
		b.AppendNull()
		return
	}
	value(b)
}
