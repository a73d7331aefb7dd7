package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/datagen/lineitem"
)

// TestRunConvert runs the whole harness small, so CI exercises every
// cell, the row checks and the report, with leak checks.
func TestRunConvert(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out strings.Builder
	rep, err := RunConvert(context.Background(), ConvertConfig{BatchRows: 1024, Batches: 3, Runs: 1, CSVBytes: 2e6, CSVRuns: 1,
		ParquetRows: 20_000, Alloc: mem}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if len(rep.Types) != 2*len(typeCases) || len(rep.CSV) < 2 || len(rep.Parquet) != 4 {
		t.Fatalf("%d type rows, %d CSV rows, %d Parquet rows", len(rep.Types), len(rep.CSV), len(rep.Parquet))
	}
	for _, x := range rep.Types {
		if x.Quiver <= 0 || x.PerValue <= 0 {
			t.Errorf("%+v: empty measurement", x)
		}
	}
	for _, want := range []string{"| dictionary string", "arrow-go csv.Reader", "pqarrow alone", "Targets", "CSV to Arrow"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := RunConvert(context.Background(), ConvertConfig{Types: []string{"nope"}}, io.Discard); err == nil {
		t.Error("unknown type accepted")
	}
}

// BenchmarkConvertType is the per-type comparison as Go benchmarks:
// one column, 8192-row batches, quiver's coalescer against arrow-go's
// builder fed value by value and AppendValues.
//
//	go test -run '^$' -bench ConvertType ./bench
func BenchmarkConvertType(b *testing.B) {
	mem := memory.NewGoAllocator()
	const rows = convert.DefaultBatchRows
	for _, c := range typeCases {
		for _, nulls := range []float64{0, 0.1} {
			in := buildTypeInput(mem, c, nulls, rows, 1)
			name := fmt.Sprintf("type=%s/nulls=%.0f%%", strings.ReplaceAll(c.name, ",", ";"), 100*nulls)
			b.Run(name+"/impl=quiver", func(b *testing.B) {
				c, err := convert.NewCoalescer(in.recs[0].Schema(), convert.Config{BatchRows: rows, Alloc: mem})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Release()
				for b.Loop() {
					if err := in.runQuiver(c, rows, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			})
			b.Run(name+"/impl=arrow-go-append", func(b *testing.B) {
				bld := array.NewBuilder(mem, in.c.dt)
				defer bld.Release()
				fns := in.perValueFns(bld)
				for b.Loop() {
					runPerValue(bld, fns, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			})
			if in.values[0] != nil {
				b.Run(name+"/impl=arrow-go-appendvalues", func(b *testing.B) {
					bld := array.NewBuilder(mem, in.c.dt)
					defer bld.Release()
					for b.Loop() {
						in.runBulk(bld, 1)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
				})
			}
			in.release()
		}
	}
}

// BenchmarkCSV reads 32 MB of lineitem CSV with arrow-go's csv.Reader
// and with quiver's on 1 and 2 goroutines; MB/s via SetBytes.
func BenchmarkCSV(b *testing.B) {
	var buf bytes.Buffer
	if _, err := lineitem.Write(&buf, 32e6, 0, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	schema := lineitem.Schema()
	b.Run("impl=arrow-go", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r := arrowcsv.NewReader(bytes.NewReader(data), schema, arrowcsv.WithHeader(true), arrowcsv.WithChunk(8192))
			for r.Next() {
			}
			if r.Err() != nil {
				b.Fatal(r.Err())
			}
			r.Release()
		}
	})
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=quiver/goroutines=%d", g), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r, err := csv.NewReader(bytes.NewReader(data), csv.Options{Schema: schema, Concurrency: g})
				if err != nil {
					b.Fatal(err)
				}
				for {
					rec, err := r.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rec.Release()
				}
				r.Release()
			}
		})
	}
}
