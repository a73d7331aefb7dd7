package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
	"github.com/quiverdb/quiver/spill"
)

var (
	sortBenchOnce  sync.Once
	sortBenchCache *cache.Cache
)

// sortModes are the ORDER BYs BenchmarkOrderBy and TestOrderByPaired
// compare: serial, on 2 workers merged (op_sort_gather.go), and on 2
// workers by key ranges (op_sort_range.go).
var sortModes = []struct {
	name    string
	workers int
	ranges  bool
}{{"workers=1", 1, false}, {"workers=2", 2, false}, {"workers=2-ranges", 2, true}}

// BenchmarkOrderBy sorts TPC-H lineitem (SF 0.1, or QUIVER_SORT_SF) on 1
// and 2 sort workers (Options.SortWorkers; 1 is the serial sort; 2 merged
// or by ranges, Options.SortByRanges), in
// memory and within a limit that makes it spill (20 MiB per 0.1 SF, lz4),
// and as a top-k. The table is generated once per process, so -count
// repeats reuse it (BENCHMARKS §16f).
func BenchmarkOrderBy(b *testing.B) {
	sf := 0.1
	if v, err := strconv.ParseFloat(os.Getenv("QUIVER_SORT_SF"), 64); err == nil && v > 0 {
		sf = v
	}
	sortBenchOnce.Do(func() {
		c, err := cache.New(cache.Options{Budget: 1 << 34})
		if err == nil {
			err = tpchcache.Load(context.Background(), c, sf, "lineitem")
		}
		if err != nil {
			b.Fatal(err)
		}
		sortBenchCache = c
	})
	m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	queries := []struct{ name, sql string }{
		{"price", `SELECT l_orderkey, l_extendedprice, l_shipdate FROM lineitem ORDER BY l_extendedprice`},
		{"comment", `SELECT l_comment, l_orderkey FROM lineitem ORDER BY l_comment`},
		{"top100", `SELECT l_orderkey, l_extendedprice FROM lineitem ORDER BY l_extendedprice DESC, l_orderkey LIMIT 100`},
	}
	for _, q := range queries {
		for _, spilling := range []bool{false, true} {
			for _, sm := range sortModes {
				if spilling && q.name == "top100" {
					continue
				}
				opts := Options{SortWorkers: sm.workers, SortByRanges: sm.ranges, MemoryLimit: 4 << 30}
				mode := "memory"
				if spilling {
					opts.MemoryLimit, opts.Spill = int64(sf*200*(1<<20)), m
					mode = fmt.Sprintf("limit=%dMiB", opts.MemoryLimit>>20)
				}
				e := New(sortBenchCache, opts)
				b.Run(fmt.Sprintf("%s/%s/%s", q.name, mode, sm.name), func(b *testing.B) {
					var st Stats
					for b.Loop() {
						st = drainStats(b, e, q.sql)
					}
					b.ReportMetric(float64(st.Spill.Bytes)/(1<<20), "spilledMiB")
					b.ReportMetric(float64(st.Spill.Files), "files")
					b.ReportMetric(float64(st.PeakMemory)/(1<<20), "peakMiB")
				})
			}
		}
	}
}

// drainStats runs sql, reads its result to the end and returns its Stats.
func drainStats(b *testing.B, e *Engine, sql string) Stats {
	r, err := e.Query(context.Background(), sql)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return r.Stats()
}

// TestOrderByPaired alternates the serial, the 2-worker merged and the
// 2-worker by-ranges ORDER BY of BenchmarkOrderBy's queries (sortModes),
// QUIVER_SORT_PAIRED rounds of each (skipped without it), and logs every
// round: on a shared, noisy machine runs back to back say more than
// medians of runs minutes apart.
//
//	QUIVER_SORT_SF=1 QUIVER_SORT_PAIRED=7 go test ./query/ -run TestOrderByPaired -v -timeout 30m
func TestOrderByPaired(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("QUIVER_SORT_PAIRED"))
	if rounds <= 0 {
		t.Skip("QUIVER_SORT_PAIRED not set")
	}
	sf := 0.1
	if v, err := strconv.ParseFloat(os.Getenv("QUIVER_SORT_SF"), 64); err == nil && v > 0 {
		sf = v
	}
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err == nil {
		err = tpchcache.Load(context.Background(), c, sf, "lineitem")
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, q := range []struct{ name, sql string }{
		{"price", `SELECT l_orderkey, l_extendedprice, l_shipdate FROM lineitem ORDER BY l_extendedprice`},
		{"comment", `SELECT l_comment, l_orderkey FROM lineitem ORDER BY l_comment`},
	} {
		for _, spilling := range []bool{false, true} {
			times := make([][]time.Duration, len(sortModes))
			for range rounds {
				for i, mode := range sortModes {
					opts := Options{SortWorkers: mode.workers, SortByRanges: mode.ranges, MemoryLimit: 4 << 30}
					if spilling {
						opts.MemoryLimit, opts.Spill = int64(sf*200*(1<<20)), m
					}
					start := time.Now()
					r, err := New(c, opts).Query(context.Background(), q.sql)
					if err != nil {
						t.Fatal(err)
					}
					for r.Next() {
					}
					err = r.Err()
					r.Release()
					if err != nil {
						t.Fatal(err)
					}
					times[i] = append(times[i], time.Since(start))
				}
			}
			med := func(d []time.Duration) time.Duration {
				d = slices.Clone(d)
				slices.Sort(d)
				return d[len(d)/2]
			}
			line := fmt.Sprintf("%s spill=%v:", q.name, spilling)
			for i, mode := range sortModes {
				line += fmt.Sprintf(" %s %v", mode.name, med(times[i]).Round(time.Millisecond))
				if i > 0 { // the median of the per-round ratios to the serial sort
					ratios := make([]float64, rounds)
					for r := range rounds {
						ratios[r] = float64(times[i][r]) / float64(times[0][r])
					}
					slices.Sort(ratios)
					line += fmt.Sprintf(" (÷serial %.2f)", ratios[rounds/2])
				}
				line += ";"
			}
			t.Logf("%s medians of %d rounds; all: %v", line, rounds, times)
		}
	}
}
