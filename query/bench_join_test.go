package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
)

// BenchmarkHashJoin joins 1M probe rows (k, v) with 100k build rows (k =
// 0…99,999 once each, w) on int64 k: with match=half, k is random in [0,
// 200k) and half the probe rows match one build row; with match=all, in
// [0, 100k) and every one does (a foreign key joined to its primary key).
// The time includes the scans, building the table, probing and gathering
// the output (an inner join returns all four columns; a semi join only
// counts matches and keeps the probe's rows), on 1 worker and on
// GOMAXPROCS.
func BenchmarkHashJoin(b *testing.B) {
	const probeRows, buildRows = 1_000_000, 100_000
	c, err := cache.New(cache.Options{Budget: 1 << 32})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	benchTable(b, c, "half", probeRows, func(i int) (int64, int64) { return int64(rng.IntN(2 * buildRows)), int64(i) })
	benchTable(b, c, "all", probeRows, func(i int) (int64, int64) { return int64(rng.IntN(buildRows)), int64(i) })
	benchTable(b, c, "build", buildRows, func(i int) (int64, int64) { return int64(i), int64(i * 3) })
	for _, probe := range []string{"half", "all"} {
		for _, kind := range []joinKind{joinInner, joinSemi} {
			for _, workers := range []int{1, 0} {
				b.Run(fmt.Sprintf("match=%s/kind=%s/workers=%d", probe, kind, workers), func(b *testing.B) {
					benchJoin(b, c, probe, kind, workers, probeRows+buildRows)
				})
			}
		}
	}
}

func benchJoin(b *testing.B, c *cache.Cache, probe string, kind joinKind, workers, rows int) {
	e := New(c, Options{Workers: workers})
	n := &hashJoinNode{probe: joinScan(b, c, probe), build: joinScan(b, c, "build"), kind: kind,
		probeKeys: []int{0}, buildKeys: []int{0}, estRows: -1}
	b.ReportAllocs()
	out := 0
	for b.Loop() {
		r, err := e.run(context.Background(), n)
		if err != nil {
			b.Fatal(err)
		}
		out = 0
		for r.Next() {
			out += int(r.RecordBatch().NumRows())
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(out), "rows-out")
}

// benchTable puts a table of two int64 columns, k and v, of n rows made
// by row, in batches of 64Ki rows.
func benchTable(b testing.TB, c *cache.Cache, name string, n int, row func(int) (int64, int64)) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	var recs []arrow.RecordBatch
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for i := range n {
		k, v := row(i)
		bld.Field(0).(*array.Int64Builder).Append(k)
		bld.Field(1).(*array.Int64Builder).Append(v)
		if bld.Field(0).Len() == 1<<16 || i == n-1 {
			recs = append(recs, bld.NewRecordBatch())
		}
	}
	r, _ := array.NewRecordReader(schema, recs)
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), name, r, cache.TableOptions{Codec: cache.Fixed(codec.SettingLZ4)}); err != nil {
		b.Fatal(err)
	}
}
