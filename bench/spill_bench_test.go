package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// Go benchmarks of the cells RunSpill compares, for profiling one:
//
//	go test -run x -bench 'Spill/dataset=wide/impl=quiver/codec=zstd:3/op=write' -cpuprofile cpu.out ./bench
//
// Each op writes (or reads) a whole dataset, 50 batches of 8192 rows, to
// a file under the test's temp dir; MB/s counts the batches' Arrow bytes,
// as RunSpill does, and bytes/op-ratio is Arrow bytes ÷ file bytes.

var (
	spillBenchOnce sync.Once
	spillBenchRecs map[string][]arrow.RecordBatch
)

func spillBenchData(b *testing.B) map[string][]arrow.RecordBatch {
	spillBenchOnce.Do(func() {
		spillBenchRecs = map[string][]arrow.RecordBatch{}
		for _, name := range SpillDatasets {
			recs, err := SpillDataset(memory.DefaultAllocator, name, 50, 8192)
			if err != nil {
				panic(err)
			}
			spillBenchRecs[name] = recs // kept for the process
		}
	})
	return spillBenchRecs
}

func BenchmarkSpill(b *testing.B) {
	data := spillBenchData(b)
	settings := []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}, {Kind: codec.Zstd, Level: 3}}
	for _, name := range SpillDatasets {
		recs := data[name]
		arrowBytes := ArrowBytes(recs)
		var cells []*spillCell
		for _, s := range settings {
			m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: s})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			cells = append(cells, quiverSpillCell(m, s))
		}
		for _, c := range arrowGoCodecs {
			cells = append(cells, arrowGoSpillCell(b.TempDir(), name, c, memory.DefaultAllocator))
		}
		for _, c := range cells {
			for _, op := range []string{"write", "read"} {
				b.Run(fmt.Sprintf("dataset=%s/impl=%s/codec=%s/op=%s", name, c.impl, c.codec, op), func(b *testing.B) {
					b.SetBytes(arrowBytes)
					b.ReportAllocs()
					var total int64
					var fileBytes int64
					for b.Loop() {
						w, r, n, err := c.run(recs, nil)
						if err != nil {
							b.Fatal(err)
						}
						fileBytes = n
						if op == "write" {
							total += int64(w)
						} else {
							total += int64(r)
						}
					}
					// Each op also did the other half; report only this
					// half's time per op.
					b.ReportMetric(float64(total)/float64(b.N), "ns/"+op)
					b.ReportMetric(float64(arrowBytes)/float64(fileBytes), "ratio")
					b.ReportMetric(float64(arrowBytes)/1e6/(float64(total)/float64(b.N)/1e9), "MB/s-"+op)
				})
			}
		}
	}
}
