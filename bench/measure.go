package bench

import (
	"runtime"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/internal/arrowsize"
)

// Timing helpers shared by RunCodecs and the Go benchmarks.

// timed runs f after a GC, so garbage from the previous cell is not
// collected on this cell's clock, and returns how long f took.
func timed(f func() error) (time.Duration, error) {
	runtime.GC()
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// withProcs runs f with GOMAXPROCS set to procs and restores it. A cell
// measured "on one goroutine" must also be on one core: arrow-go's zstd
// writer and reader start GOMAXPROCS goroutines of their own, and the GC's
// background workers would otherwise run free on the idle core.
func withProcs(procs int, f func() error) error {
	if procs <= 0 {
		return f()
	}
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	return f()
}

// median is the middle duration (the upper middle for an even count).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// spread is (max-min)/median, to show how much a median can be trusted on
// a noisy machine.
func spread(ds []time.Duration) float64 {
	m := median(ds)
	if m == 0 {
		return 0
	}
	return float64(slices.Max(ds)-slices.Min(ds)) / float64(m)
}

// mbps is bytes per second in MB (10^6 bytes).
func mbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// pairedRatio is how many times faster a ran than b: the median over runs
// of b[i]/a[i]. Cells a target compares run back to back in each run, so
// a burst of load from other processes slows both and cancels here, where
// it would skew a ratio of two medians taken from different runs.
func pairedRatio(a, b []time.Duration) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	rs := make([]float64, n)
	for i := range n {
		rs[i] = float64(b[i]) / float64(a[i])
	}
	slices.Sort(rs)
	return rs[n/2]
}

// ArrowBytes is the MB/s numerator: the summed length of every buffer of
// every column of recs (validity, offsets, values), as they lie in memory.
// datagen.CometRecords sizes buffers exactly, so this is the data itself.
func ArrowBytes(recs []arrow.RecordBatch) int64 {
	var total int64
	for _, r := range recs {
		for _, c := range r.Columns() {
			total += arrowsize.Data(c.Data())
		}
	}
	return total
}
