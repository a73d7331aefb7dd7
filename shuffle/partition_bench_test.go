package shuffle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// lineitemLike is a batch shaped like TPC-H lineitem's keys and a few
// columns in the engine's types: l_orderkey (ascending, about 4 rows a
// key), l_partkey, l_suppkey, l_quantity and l_extendedprice
// (decimal(15,2)).
func lineitemLike(mem memory.Allocator, rows int, seed uint64) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 3))
	ints := func(f func(i int) int64) arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range rows {
			b.Append(f(i))
		}
		return b.NewArray()
	}
	dt := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	db := array.NewDecimal128Builder(mem, dt)
	defer db.Release()
	for range rows {
		db.Append(decimal128.FromI64(90000 + rng.Int64N(10_000_000)))
	}
	cols := []arrow.Array{
		ints(func(i int) int64 { return int64(i/4 + 1) }),
		ints(func(int) int64 { return 1 + rng.Int64N(200_000) }),
		ints(func(int) int64 { return 1 + rng.Int64N(10_000) }),
		ints(func(int) int64 { return 1 + rng.Int64N(50) }),
		db.NewArray(),
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64}, {Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64}, {Name: "l_quantity", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_extendedprice", Type: dt},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// BenchmarkRepartition is the in-memory hash repartition an exchange
// does: the partition of each row by its key (HashPartitioner), then the
// rows cut by partition, on one core. cut=split is Split, a batch per
// partition of every batch in (the grace join's and the GROUP BY
// exchange's way); cut=gather is a Repartitioner, each row appended to
// its partition's batch, emitted at 8,192 rows. The target is
// 1 GB/s of Arrow bytes per core. The pieces come from the engine's
// allocator, the cache's recycler, as in a query.
func BenchmarkRepartition(b *testing.B) {
	mem := cache.RecyclingAllocator()
	rec := lineitemLike(mem, 8192, 1)
	defer rec.Release()
	keys := []arrow.Array{rec.Column(0)}
	for _, fanout := range []int{2, 16, 64} {
		for _, cut := range []string{"split", "gather"} {
			b.Run(fmt.Sprintf("fanout=%d/cut=%s", fanout, cut), func(b *testing.B) {
				p, err := NewHashPartitioner([]arrow.DataType{arrow.PrimitiveTypes.Int64}, 7, fanout)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Release()
				r, err := NewRepartitioner(mem, rec.Schema(), RepartitionConfig{Fanout: fanout})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Release()
				var sc SplitScratch
				var ids []uint16
				emitted := 0
				emit := func(_ int, part arrow.RecordBatch) error { emitted += int(part.NumRows()); return nil }
				b.SetBytes(arrowsize.Record(rec))
				b.ReportAllocs()
				for b.Loop() {
					if ids, err = p.Partition(ids[:0], keys, int(rec.NumRows())); err != nil {
						b.Fatal(err)
					}
					if cut == "split" {
						err = Split(context.Background(), mem, rec, ids, fanout, &sc, emit)
					} else {
						err = r.Add(context.Background(), rec, ids, emit)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if err := r.Flush(emit); err != nil {
					b.Fatal(err)
				}
				if emitted != b.N*int(rec.NumRows()) {
					b.Fatalf("%d rows emitted of %d", emitted, b.N*int(rec.NumRows()))
				}
			})
		}
	}
}

// TestSplit: every row reaches the partition its id names, in row order;
// ids past fanout drop rows; one partition gets the batch itself.
func TestSplit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := lineitemLike(mem, 1000, 2)
	defer rec.Release()
	p, err := NewHashPartitioner([]arrow.DataType{arrow.PrimitiveTypes.Int64}, 9, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	ids, err := p.Partition(nil, []arrow.Array{rec.Column(0)}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids[3], ids[500] = 0xFFFF, 8 // dropped
	keys := rec.Column(0).(*array.Int64).Int64Values()
	var sc SplitScratch
	seen := 0
	err = Split(context.Background(), mem, rec, ids, 8, &sc, func(part int, b arrow.RecordBatch) error {
		got := b.Column(0).(*array.Int64).Int64Values()
		var want []int64
		for r, id := range ids {
			if int(id) == part {
				want = append(want, keys[r])
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("partition %d: %d rows, want %d", part, len(got), len(want))
		}
		seen += len(got)
		return nil
	})
	if err != nil || seen != 998 {
		t.Fatalf("%v; %d rows seen, want 998", err, seen)
	}
	same := make([]uint16, 1000)
	var got arrow.RecordBatch
	if err := Split(context.Background(), mem, rec, same, 8, &sc, func(_ int, b arrow.RecordBatch) error { got = b; return nil }); err != nil || got != rec {
		t.Errorf("one partition: %v, batch %p, want %p", err, got, rec)
	}
}
