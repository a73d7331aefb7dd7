package extsort_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/spill"
)

// BenchmarkSortTPCH runs sort_tpch's Q3, Q7 and Q10 over TPC-H lineitem at
// SF 0.1 (600,572 rows, generated once and held in memory) with a 20 MiB
// limit (sort_tpch's 200 MiB at SF 1, scaled), spilling with each codec.
// quiver bench sort measures SF 1 against DuckDB; this is the same work
// at a size a Go benchmark can repeat. QUIVER_SORT_SF=1 runs SF 1 with
// 200 MiB (for profiles of the real size).
func BenchmarkSortTPCH(b *testing.B) {
	batches := lineitemBatches(b)
	queries := []struct {
		name string
		cols []int
		keys []extsort.Key
	}{
		{"q3", []int{15, 1}, []extsort.Key{{Col: 0}}},
		{"q7", nil, []extsort.Key{{Col: 3}, {Col: 2}, {Col: 0}}},
		{"q10", nil, []extsort.Key{{Col: 0}, {Col: 2}, {Col: 3}, {Col: 15}}},
	}
	for _, q := range queries {
		input := project(batches, q.cols)
		for _, c := range benchCodecs {
			setting, err := codec.ParseSetting(c)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("query=%s/codec=%s", q.name, c), func(b *testing.B) {
				b.ReportAllocs()
				var met extsort.Metrics
				var rows int64
				for b.Loop() {
					met, rows = sortOnce(b, input, q.keys, setting)
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(met.SpilledBytes)/(1<<20), "spilledMiB")
				b.ReportMetric(float64(met.Runs), "runs")
				b.ReportMetric(float64(met.RowsKept), "kept")
				b.ReportMetric(float64(met.PeakMemory)/(1<<20), "peakMiB")
			})
		}
	}
}

var (
	tpchOnce    sync.Once
	tpchBatches []arrow.RecordBatch
)

func lineitemBatches(b *testing.B) []arrow.RecordBatch {
	tpchOnce.Do(func() {
		r, err := tpch.Lineitem(memory.NewGoAllocator(), benchSF())
		if err != nil {
			b.Fatal(err)
		}
		defer r.Release()
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			tpchBatches = append(tpchBatches, rec)
		}
	})
	return tpchBatches
}

// project selects cols of each batch (nil: all).
func project(batches []arrow.RecordBatch, cols []int) []arrow.RecordBatch {
	if cols == nil {
		return batches
	}
	out := make([]arrow.RecordBatch, len(batches))
	for i, rec := range batches {
		fields := make([]arrow.Field, len(cols))
		arrs := make([]arrow.Array, len(cols))
		for k, c := range cols {
			fields[k] = rec.Schema().Field(c)
			arrs[k] = rec.Column(c)
		}
		out[i] = arrowRecord(arrow.NewSchema(fields, nil), arrs, rec.NumRows())
	}
	return out
}

func sortOnce(b *testing.B, input []arrow.RecordBatch, keys []extsort.Key, c codec.Setting) (extsort.Metrics, int64) {
	// Compressing a batch's buffers on every core keeps the run writer up
	// with the gathering (as quiver bench sort does).
	m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: c, Concurrency: runtime.GOMAXPROCS(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	s, err := extsort.New(input[0].Schema(), extsort.Config{Keys: keys, MemoryLimit: int64(benchSF() * 200 * (1 << 20)), Spill: m})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, rec := range input {
		if err := s.Add(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	r, err := s.Finish(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	r.Release()
	return s.Metrics(), rows
}

// benchCodecs are the spill codecs measured: quiver bench sort's and zstd:3.
var benchCodecs = []string{"none", "lz4", "zstd:1", "zstd:3"}

// benchSF is QUIVER_SORT_SF, default 0.1.
func benchSF() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("QUIVER_SORT_SF"), 64); err == nil && v > 0 {
		return v
	}
	return 0.1
}
