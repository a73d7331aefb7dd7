package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DataFusion's spill_io datasets (datafusion/physical-plan/benches/
// spill_io.rs, the benchmark of PR #26960): partial aggregate results of
// TPC-H Q2, Q16 and Q20 and a sort-tpch Q10-like wide relation, each
// batches × 8192 rows from a fixed seed. Same schemas, value pools,
// ranges and seeds; the random streams differ (Go's PCG, not Rust's
// StdRng), so the values are alike in distribution, not identical.

// SpillDatasets are the dataset names SpillDataset knows, in report order.
var SpillDatasets = []string{"q2", "q16", "q20", "wide"}

// SpillDataset returns batches batches of rows rows of the named dataset.
// The caller releases them.
func SpillDataset(mem memory.Allocator, name string, batches, rows int) ([]arrow.RecordBatch, error) {
	switch name {
	case "q2":
		return spillQ2(mem, batches, rows), nil
	case "q16":
		return spillQ16(mem, batches, rows), nil
	case "q20":
		return spillQ20(mem, batches, rows), nil
	case "wide":
		return spillWide(mem, batches, rows), nil
	}
	return nil, fmt.Errorf("bench: unknown spill dataset %q (want q2, q16, q20 or wide)", name)
}

func spillRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// spillRange returns a uniform value in [lo, hi), as Rust's random_range.
func spillRange(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int64N(hi-lo) }

func dec(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }

// spillQ2: GROUP BY ps_partkey -> MIN(ps_supplycost). Keys rise by 1, or
// by 2..9 with probability 0.05.
func spillQ2(mem memory.Allocator, batches, rows int) []arrow.RecordBatch {
	r := spillRNG(2)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ps_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "min_ps_supplycost", Type: dec(15, 2), Nullable: true},
	}, nil)
	key := int64(400000)
	return buildBatches(mem, schema, batches, rows, func(b *array.RecordBuilder, _ int) {
		jump := int64(1)
		if r.Float64() < 0.05 {
			jump = spillRange(r, 2, 10)
		}
		key += jump
		b.Field(0).(*array.Int64Builder).Append(key)
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(spillRange(r, 1000, 100000)))
	})
}

// spillQ16: GROUP BY p_brand, p_type, p_size -> COUNT(DISTINCT ps_suppkey).
func spillQ16(mem memory.Allocator, batches, rows int) []arrow.RecordBatch {
	r := spillRNG(16)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "p_brand", Type: arrow.BinaryTypes.String},
		{Name: "p_type", Type: arrow.BinaryTypes.String},
		{Name: "p_size", Type: arrow.PrimitiveTypes.Int32},
		{Name: "alias1", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	brands := []string{"Brand#32", "Brand#33", "Brand#41", "Brand#42", "Brand#55"}
	types := []string{
		"PROMO ANODIZED NICKEL", "STANDARD BRUSHED NICKEL", "PROMO POLISHED COPPER", "ECONOMY ANODIZED BRASS",
		"LARGE BURNISHED COPPER", "STANDARD POLISHED TIN", "SMALL PLATED STEEL", "MEDIUM POLISHED COPPER",
	}
	sizes := []int32{3, 9, 14, 19, 23, 36, 45, 49}
	return buildBatches(mem, schema, batches, rows, func(b *array.RecordBuilder, _ int) {
		b.Field(0).(*array.StringBuilder).Append(brands[r.IntN(len(brands))])
		b.Field(1).(*array.StringBuilder).Append(types[r.IntN(len(types))])
		b.Field(2).(*array.Int32Builder).Append(sizes[r.IntN(len(sizes))])
		b.Field(3).(*array.Int64Builder).Append(spillRange(r, 1000, 100000))
	})
}

// spillQ20: GROUP BY l_partkey, l_suppkey -> SUM(l_quantity). Part keys
// rise by 1, or by 2..5 with probability 0.03.
func spillQ20(mem memory.Allocator, batches, rows int) []arrow.RecordBatch {
	r := spillRNG(20)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "sum_l_quantity", Type: dec(25, 2), Nullable: true},
	}, nil)
	key := int64(400000)
	return buildBatches(mem, schema, batches, rows, func(b *array.RecordBuilder, _ int) {
		jump := int64(1)
		if r.Float64() < 0.03 {
			jump = spillRange(r, 2, 6)
		}
		key += jump
		b.Field(0).(*array.Int64Builder).Append(key)
		b.Field(1).(*array.Int64Builder).Append(spillRange(r, 10000, 99999))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(spillRange(r, 500, 20000)))
	})
}

// spillWide: 15 lineitem-like columns, as sort-tpch Q10 spills them.
func spillWide(mem memory.Allocator, batches, rows int) []arrow.RecordBatch {
	r := spillRNG(10)
	str := arrow.BinaryTypes.String
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_quantity", Type: dec(15, 2)},
		{Name: "l_extendedprice", Type: dec(15, 2)},
		{Name: "l_discount", Type: dec(15, 2)},
		{Name: "l_tax", Type: dec(15, 2)},
		{Name: "l_returnflag", Type: str},
		{Name: "l_linestatus", Type: str},
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_shipinstruct", Type: str},
		{Name: "l_shipmode", Type: str},
	}, nil)
	flags := []string{"A", "N", "R"}
	statuses := []string{"F", "O"}
	instructs := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE"}
	modes := []string{"TRUCK", "MAIL", "SHIP", "RAIL", "AIR"}
	return buildBatches(mem, schema, batches, rows, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.Int32Builder).Append(int32(i % 7))
		b.Field(1).(*array.Int64Builder).Append(spillRange(r, 0, 100000))
		b.Field(2).(*array.Int64Builder).Append(1000000 + int64(i))
		b.Field(3).(*array.Int64Builder).Append(spillRange(r, 0, 200000))
		for c, hi := range []int64{10000, 1000000, 10000, 5000} {
			lo := []int64{100, 1000, 0, 0}[c]
			b.Field(4 + c).(*array.Decimal128Builder).Append(decimal128.FromI64(spillRange(r, lo, hi)))
		}
		b.Field(8).(*array.StringBuilder).Append(flags[r.IntN(len(flags))])
		b.Field(9).(*array.StringBuilder).Append(statuses[r.IntN(len(statuses))])
		d := arrow.Date32(10000 + i%1000)
		b.Field(10).(*array.Date32Builder).Append(d)
		b.Field(11).(*array.Date32Builder).Append(d + 1)
		b.Field(12).(*array.Date32Builder).Append(d + 2)
		b.Field(13).(*array.StringBuilder).Append(instructs[r.IntN(len(instructs))])
		b.Field(14).(*array.StringBuilder).Append(modes[r.IntN(len(modes))])
	})
}

// buildBatches calls row for each row of each batch (i is the row within
// its batch, as in the Rust generators) and returns the batches.
func buildBatches(mem memory.Allocator, schema *arrow.Schema, batches, rows int, row func(b *array.RecordBuilder, i int)) []arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	out := make([]arrow.RecordBatch, 0, batches)
	for range batches {
		for i := range rows {
			row(b, i)
		}
		out = append(out, b.NewRecordBatch())
	}
	return out
}
