package query

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// salesRows is the size of BenchmarkNarrowTypes' table: about a third of
// TPC-DS catalog_sales at SF 1.
const salesRows = 1 << 19

// salesSchema is shaped like TPC-DS catalog_sales as the `quiver bench
// serve` workload loads it: int32 surrogate keys (the first two NOT
// NULL), an int32 quantity and decimal(7,2) money held as decimal128.
var salesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "cs_sold_date_sk", Type: arrow.PrimitiveTypes.Int32},
	{Name: "cs_item_sk", Type: arrow.PrimitiveTypes.Int32},
	{Name: "cs_customer_sk", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "cs_quantity", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "cs_sales_price", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}, Nullable: true},
	{Name: "cs_net_profit", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}, Nullable: true},
}, nil)

// loadSales puts salesRows rows of salesSchema, from a fixed seed, into
// c as "catalog_sales".
func loadSales(tb testing.TB, c *cache.Cache) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var recs []arrow.RecordBatch
	for start := 0; start < salesRows; start += 8192 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, salesSchema)
		for i := start; i < min(start+8192, salesRows); i++ {
			b.Field(0).(*array.Int32Builder).Append(2450815 + int32(i/300))
			b.Field(1).(*array.Int32Builder).Append(1 + rng.Int32N(18000))
			b.Field(2).(*array.Int32Builder).Append(1 + rng.Int32N(100000))
			if rng.IntN(50) == 0 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Int32Builder).Append(1 + rng.Int32N(100))
			}
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(30000)))
			b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(2000000) - 1000000))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	r, err := array.NewRecordReader(salesSchema, recs)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), "catalog_sales", r, cache.TableOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkNarrowTypes runs queries over a table of int32 and
// decimal(7,2) columns, the types the engine computes on as int64 and
// decimal128: whole-table and filtered pass-through (where no value needs
// converting), an expression and a GROUP BY over them (where some do), and
// a top-k. result-bytes/op is the Arrow buffer bytes of the result, what
// the server then compresses and sends.
func BenchmarkNarrowTypes(b *testing.B) {
	c, err := cache.New(cache.Options{Budget: 1 << 32})
	if err != nil {
		b.Fatal(err)
	}
	loadSales(b, c)
	e := New(c, Options{})
	for _, q := range []struct{ name, sql string }{
		{"select-star", `SELECT * FROM catalog_sales`},
		{"filter-project", `SELECT cs_item_sk, cs_quantity, cs_sales_price FROM catalog_sales WHERE cs_quantity < 10`},
		{"filter-all-pass", `SELECT cs_sold_date_sk, cs_item_sk, cs_customer_sk, cs_net_profit FROM catalog_sales WHERE cs_quantity > 0`},
		{"expression", `SELECT cs_item_sk, cs_quantity * cs_sales_price FROM catalog_sales WHERE cs_quantity < 10`},
		{"group-by", `SELECT cs_sold_date_sk, sum(cs_net_profit), count(*) FROM catalog_sales GROUP BY cs_sold_date_sk`},
		{"top100", `SELECT cs_item_sk, cs_customer_sk, cs_net_profit FROM catalog_sales ORDER BY cs_net_profit DESC LIMIT 100`},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			var bytes, rows int64
			for b.Loop() {
				r, err := e.Query(context.Background(), q.sql)
				if err != nil {
					b.Fatal(err)
				}
				bytes, rows = 0, 0
				for r.Next() {
					bytes += arrowsize.Record(r.RecordBatch())
					rows += r.RecordBatch().NumRows()
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				r.Release()
			}
			b.ReportMetric(float64(bytes), "result-bytes/op")
			b.ReportMetric(float64(salesRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
