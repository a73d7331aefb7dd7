package extsort

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkInterleave answers: what does gathering a row cost when rows come
// (random) in random order from many batches, (stream) in turn from
// sorted streams of many batches, (batch) in random order from one batch,
// (copy) as one stretch — per column type. It decides how runs are built.
func BenchmarkInterleave(b *testing.B) {
	const rows, nb = 8192, 64
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	schema := arrow.NewSchema([]arrow.Field{{Name: "i64", Type: arrow.PrimitiveTypes.Int64}, {Name: "str", Type: arrow.BinaryTypes.String}}, nil)
	srcs := make([]arrow.RecordBatch, nb)
	for k := range srcs {
		ib := array.NewInt64Builder(mem)
		sb := array.NewStringBuilder(mem)
		for range rows {
			ib.Append(r.Int64())
			sb.Append("a comment of some twenty-seven bytes"[:10+r.IntN(25)])
		}
		cols := []arrow.Array{ib.NewArray(), sb.NewArray()}
		srcs[k] = array.NewRecordBatch(schema, cols, rows)
	}
	patterns := map[string]func(g *Interleave){
		"random": func(g *Interleave) {
			for range rows {
				g.Add(r.IntN(nb), r.IntN(rows))
			}
		},
		"stream": func(g *Interleave) {
			pos := make([]int, nb)
			for range rows {
				k := r.IntN(nb)
				g.Add(k, pos[k])
				pos[k]++
			}
		},
		"batch": func(g *Interleave) {
			for range rows {
				g.Add(0, r.IntN(rows))
			}
		},
		"copy": func(g *Interleave) { g.AddRange(0, 0, rows) },
	}
	for _, p := range []string{"random", "stream", "batch", "copy"} {
		for c := range 2 {
			b.Run(fmt.Sprintf("pattern=%s/col=%s", p, schema.Field(c).Name), func(b *testing.B) {
				one := arrow.NewSchema([]arrow.Field{schema.Field(c)}, nil)
				proj := make([]arrow.RecordBatch, nb)
				for k := range proj {
					proj[k] = array.NewRecordBatch(one, []arrow.Array{srcs[k].Column(c)}, rows)
				}
				var g Interleave
				patterns[p](&g)
				b.ReportAllocs()
				for b.Loop() {
					out, err := g.Record(mem, one, proj, 1)
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			})
		}
	}
}
