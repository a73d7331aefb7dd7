package query

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

var winSpillRows = flag.Int("winspill-rows", 4_000_000, "rows of BenchmarkWindowSpill's table")

// BenchmarkWindowSpill runs windows whose one partition is the whole
// table (-winspill-rows rows of k, a permutation, and v): ntile over ORDER
// BY k (sorted, then spilled by the window), sum over the whole partition
// (no sort: the window spills alone) and a suffix sum, in memory and
// within a 16 MiB limit spilling with lz4 (window_spill.go).
//
//	go test -run XXX -bench WindowSpill -benchtime 3x ./query/
func BenchmarkWindowSpill(b *testing.B) {
	n := *winSpillRows
	c := winSpillTable(b, n)
	m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for _, q := range []struct{ name, sql string }{
		{"ntile", `SELECT max(t), sum(t) FROM (SELECT ntile(4) OVER (ORDER BY k) AS t FROM w) x`},
		{"sum-over-all", `SELECT max(s), sum(v) FROM (SELECT v, sum(v) OVER () AS s FROM w) x`},
		{"suffix-sum", `SELECT max(s) FROM (SELECT sum(v) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM w) x`},
	} {
		for _, lim := range []int64{0, 16 << 20} {
			opts := Options{Workers: 2}
			name := "mem=unlimited"
			if lim > 0 {
				opts.MemoryLimit, opts.Spill = lim, m
				name = fmt.Sprintf("mem=%dMiB", lim>>20)
			}
			e := New(c, opts)
			b.Run(fmt.Sprintf("q=%s/rows=%d/%s", q.name, n, name), func(b *testing.B) {
				var st Stats
				for b.Loop() {
					r, err := e.Query(context.Background(), q.sql)
					if err != nil {
						b.Fatal(err)
					}
					for r.Next() {
					}
					if err := r.Err(); err != nil {
						b.Fatal(err)
					}
					st = r.Stats()
					r.Release()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(st.PeakMemory)/(1<<20), "peak-MiB")
				b.ReportMetric(float64(st.Spill.Bytes)/(1<<20), "spilled-MiB")
			})
		}
	}
}

// winSpillTable is table w: n rows of k (a permutation of 0..n-1) and v
// (0..999).
func winSpillTable(b *testing.B, n int) *cache.Cache {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	var recs []arrow.RecordBatch
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for i := range n {
		rb.Field(0).(*array.Int64Builder).Append(int64(i) * 7919 % int64(n)) // n not a multiple of 7919
		rb.Field(1).(*array.Int64Builder).Append(int64(i % 1000))
		if rb.Field(0).Len() == 1<<16 || i == n-1 {
			recs = append(recs, rb.NewRecordBatch())
		}
	}
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := array.NewRecordReader(schema, recs)
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), "w", r, cache.TableOptions{}); err != nil {
		b.Fatal(err)
	}
	return c
}
