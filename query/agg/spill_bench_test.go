package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// BenchmarkSpillMerge answers: what do spilling and merging cost a GROUP
// BY past memory, per input row? 50 batches of 8192 rows, int64 keys of
// 100,000 groups and int64 values, the table spilled every 5 batches (10
// runs of about 34,000 groups), then merged: in one final merge, and with
// a fan-in of 4 (merge passes first). Without count(DISTINCT) the merge
// combines partial states; with it, it also merges pairs.
func BenchmarkSpillMerge(b *testing.B) {
	const batches, rows, groups = 50, 8192, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	i64 := arrow.PrimitiveTypes.Int64
	keys := make([]arrow.Array, batches)
	vals := make([]arrow.Array, batches)
	for i := range batches {
		kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
		for range rows {
			kb.Append(rng.Int64N(groups))
			vb.Append(rng.Int64N(1000))
		}
		keys[i], vals[i] = kb.NewArray(), vb.NewArray()
		kb.Release()
		vb.Release()
	}
	defer releaseArrays(keys)
	defer releaseArrays(vals)
	for _, c := range []struct {
		name  string
		specs []Spec
	}{
		{"states", []Spec{{Func: CountStar}, {Func: Sum, Arg: 0}, {Func: Max, Arg: 0}}},
		{"distinct", []Spec{{Func: CountStar}, {Func: CountDistinct, Arg: 0}}},
	} {
		for _, fanIn := range []int{64, 4} {
			b.Run(fmt.Sprintf("specs=%s/fanin=%d", c.name, fanIn), func(b *testing.B) {
				m, err := spill.NewManager(spill.Config{Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				b.SetBytes(batches * rows * 16)
				b.ReportAllocs()
				ctx := context.Background()
				for b.Loop() {
					h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{i64}, c.specs, Options{})
					if err != nil {
						b.Fatal(err)
					}
					sp, err := NewSpiller(h, SpillConfig{Manager: m, FanIn: fanIn})
					if err != nil {
						b.Fatal(err)
					}
					for i := range batches {
						if err := h.Add(keys[i:i+1], vals[i:i+1]); err != nil {
							b.Fatal(err)
						}
						if i%5 == 4 {
							if err := sp.Spill(ctx, h); err != nil {
								b.Fatal(err)
							}
						}
					}
					r, err := sp.Finish(ctx, h)
					if err != nil {
						b.Fatal(err)
					}
					n := int64(0)
					for r.Next() {
						n += r.RecordBatch().NumRows()
					}
					if r.Err() != nil || n == 0 {
						b.Fatal(r.Err(), n)
					}
					r.Release()
					sp.Close()
					h.Release()
				}
				b.ReportMetric(float64(batches*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
