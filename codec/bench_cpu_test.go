//go:build unix

package codec_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used. The development machine
// is shared, so wall-clock MB/s moves with other people's jobs; MB per CPU
// second does not (much), and the benchmarks report both.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports throughput per CPU second since start, for a loop of
// b.N operations on n bytes each.
func reportCPU(b *testing.B, start time.Duration, n int) {
	if used := cpuTime() - start; used > 0 && start > 0 {
		b.ReportMetric(float64(b.N)*float64(n)/used.Seconds()/1e6, "cpuMB/s")
	}
}
