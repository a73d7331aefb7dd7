package column

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
)

// BenchmarkAppendArray is the bulk path per type: one 8192-row input
// batch appended and finished, ns per row reported.
func BenchmarkAppendArray(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, c := range []struct {
		name string
		dt   arrow.DataType
		dict bool
	}{
		{"int64", arrow.PrimitiveTypes.Int64, false},
		{"decimal128", &arrow.Decimal128Type{Precision: 18, Scale: 2}, false},
		{"string", arrow.BinaryTypes.String, false},
		{"dict-string", arrow.BinaryTypes.String, true},
	} {
		for _, nulls := range []float64{0, 0.1} {
			r := rand.New(rand.NewPCG(1, 2))
			var in arrow.Array
			if c.dict {
				d := datagen.Gen(mem, c.dt, 1000, 0, r)
				in = datagen.Dictionary(mem, d, 8192, nulls, r)
			} else {
				in = datagen.Gen(mem, c.dt, 8192, nulls, r)
			}
			b.Run(c.name+map[bool]string{false: "/nulls=0", true: "/nulls=0.1"}[nulls > 0], func(b *testing.B) {
				bld, _ := New(in.DataType(), mem, 8192)
				defer bld.Release()
				b.ReportAllocs()
				for b.Loop() {
					if err := bld.AppendArray(in, 0, 8192, Mask{}); err != nil {
						b.Fatal(err)
					}
					bld.Finish().Release()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*8192), "ns/row")
			})
		}
	}
}
