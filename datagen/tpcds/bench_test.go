package tpcds

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkCatalogSales answers: how long does the serve benchmark wait
// for its data? Bytes are Arrow buffer bytes generated.
func BenchmarkCatalogSales(b *testing.B) {
	const rows = 200_000
	for _, bc := range []struct {
		name string
		cols []int
	}{{"cols=34", nil}, {"cols=8", NumericColumns}} {
		b.Run(bc.name, func(b *testing.B) {
			var bytes int64
			b.ReportAllocs()
			for b.Loop() {
				r, err := NewCatalogSales(memory.DefaultAllocator, Config{Rows: rows, Columns: bc.cols})
				if err != nil {
					b.Fatal(err)
				}
				bytes = 0
				for r.Next() {
					for _, c := range r.RecordBatch().Columns() {
						for _, buf := range c.Data().Buffers() {
							if buf != nil {
								bytes += int64(buf.Len())
							}
						}
					}
				}
				r.Release()
			}
			b.SetBytes(bytes)
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
