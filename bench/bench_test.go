package bench

import (
	"bytes"
	"flag"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// Go benchmarks of the cells RunCodecs compares, for profiling one cell:
//
//	go test -run x -bench 'BatchDecode/codec=lz4/goroutines=1' -cpuprofile cpu.out ./bench
//
// Quiver and arrow-go run on the same records and allocator; MB/s
// (b.SetBytes) counts uncompressed Arrow buffer bytes, as RunCodecs does.
// Each sub-benchmark runs with GOMAXPROCS = goroutines.

var benchRows = flag.Int("bench.rows", 500_000, "rows of the Comet relation the benchmarks encode")

var (
	benchOnce sync.Once
	benchRecs []arrow.RecordBatch
)

// benchRecords builds the relation once per test binary; the records are
// not released (GoAllocator memory, kept for the process).
func benchRecords() []arrow.RecordBatch {
	benchOnce.Do(func() {
		warmCodecs([]codec.Setting{codec.SettingLZ4, codec.SettingZstd, {Kind: codec.Zstd, Level: 1}})
		benchRecs = datagen.CometRecords(memory.DefaultAllocator, *benchRows, datagen.DefaultCometBatch)
	})
	return benchRecs
}

var (
	benchQuiver  = []string{"none", "lz4", "zstd:1", "zstd:3"}
	benchGorouts = []int{1, 2}
)

func BenchmarkBatchEncode(b *testing.B) {
	forQuiver(b, func(b *testing.B, r ipcRunner) { benchEncode(b, r) })
}

func BenchmarkBatchDecode(b *testing.B) {
	forQuiver(b, func(b *testing.B, r ipcRunner) { benchDecode(b, r) })
}

func BenchmarkArrowGoWrite(b *testing.B) {
	forArrowGo(b, func(b *testing.B, r ipcRunner) { benchEncode(b, r) })
}

func BenchmarkArrowGoRead(b *testing.B) {
	forArrowGo(b, func(b *testing.B, r ipcRunner) { benchDecode(b, r) })
}

func forQuiver(b *testing.B, f func(*testing.B, ipcRunner)) {
	for _, name := range benchQuiver {
		s, err := codec.ParseSetting(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range benchGorouts {
			b.Run(fmt.Sprintf("codec=%s/goroutines=%d", name, g), func(b *testing.B) {
				withProcs(g, func() error {
					f(b, newQuiverIPC(benchRecords(), s, g, memory.DefaultAllocator, new([]byte)))
					return nil
				})
			})
		}
	}
}

func forArrowGo(b *testing.B, f func(*testing.B, ipcRunner)) {
	for _, name := range arrowGoCodecs {
		for _, g := range benchGorouts {
			b.Run(fmt.Sprintf("codec=%s/goroutines=%d", name, g), func(b *testing.B) {
				withProcs(g, func() error {
					f(b, newArrowGoIPC(benchRecords(), name, g, memory.DefaultAllocator, newBytesBuffer()))
					return nil
				})
			})
		}
	}
}

func benchEncode(b *testing.B, r ipcRunner) {
	n := ArrowBytes(benchRecords())
	size, err := r.encode() // grows the stream buffer before timing
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if size, err = r.encode(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/float64(size), "ratio")
	b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func benchDecode(b *testing.B, r ipcRunner) {
	n := ArrowBytes(benchRecords())
	size, err := r.encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.decode(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/float64(size), "ratio")
	b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func newBytesBuffer() *bytes.Buffer { return new(bytes.Buffer) }
