package tpch

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkGenerate measures generating each table at SF 0.1, after the
// text pool is built.
func BenchmarkGenerate(b *testing.B) {
	textPool()
	for _, table := range Tables {
		b.Run("table="+table, func(b *testing.B) {
			b.ReportAllocs()
			rows := int64(0)
			for b.Loop() {
				r, err := NewReader(memory.NewGoAllocator(), table, 0.1)
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
					rows += r.RecordBatch().NumRows()
				}
				r.Release()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
