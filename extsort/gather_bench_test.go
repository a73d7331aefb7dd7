package extsort

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkGather answers: what does gathering a row cost when rows come
// (random) in random order from many batches, (stream) in turn from
// sorted streams of many batches, (batch) in random order from one batch,
// (copy) as one stretch — per column type. It decides how runs are built.
func BenchmarkGather(b *testing.B) {
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
	patterns := map[string]func(g *gatherer){
		"random": func(g *gatherer) {
			for range rows {
				g.add(r.IntN(nb), r.IntN(rows))
			}
		},
		"stream": func(g *gatherer) {
			pos := make([]int, nb)
			for range rows {
				k := r.IntN(nb)
				g.add(k, pos[k])
				pos[k]++
			}
		},
		"batch": func(g *gatherer) {
			for range rows {
				g.add(0, r.IntN(rows))
			}
		},
		"copy": func(g *gatherer) { g.addRange(0, 0, rows) },
	}
	for _, p := range []string{"random", "stream", "batch", "copy"} {
		for c := range 2 {
			b.Run(fmt.Sprintf("pattern=%s/col=%s", p, schema.Field(c).Name), func(b *testing.B) {
				one := arrow.NewSchema([]arrow.Field{schema.Field(c)}, nil)
				proj := make([]arrow.RecordBatch, nb)
				for k := range proj {
					proj[k] = array.NewRecordBatch(one, []arrow.Array{srcs[k].Column(c)}, rows)
				}
				var g gatherer
				patterns[p](&g)
				b.ReportAllocs()
				for b.Loop() {
					out, err := g.build(mem, one, proj, 1)
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
