package query

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// BenchmarkGraceJoin joins 2M probe rows (k random in [0, 2M), v) with a
// 1M-row build side (k = 0…999,999 once each, w) on int64 k, an inner
// join returning all four columns (half the probe rows match), in memory
// and with MemoryLimit 16 MiB and a spill Manager (lz4), where the build
// side (32 MB of columns and its hash table) spills: a grace hash join.
// It reports the bytes the join spilled per run: written to files, and
// held in memory (map outputs that fit: shuffle_held.go).
//
//	go test -run '^$' -bench GraceJoin -benchtime 3x ./query/
func BenchmarkGraceJoin(b *testing.B) {
	const probeRows, buildRows = 2_000_000, 1_000_000
	c, err := cache.New(cache.Options{Budget: 1 << 32})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	benchTable(b, c, "probe", probeRows, func(i int) (int64, int64) { return int64(rng.IntN(2 * buildRows)), int64(i) })
	benchTable(b, c, "build", buildRows, func(i int) (int64, int64) { return int64(i), int64(i * 3) })
	m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for _, tc := range []struct {
		name  string
		opts  Options
		spill bool
	}{
		{"memory", Options{MemoryLimit: 1 << 30}, false},
		{"limit=16MiB", Options{MemoryLimit: 16 << 20, Spill: m}, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := New(c, tc.opts)
			n := &hashJoinNode{probe: joinScan(b, c, "probe"), build: joinScan(b, c, "build"), kind: joinInner,
				probeKeys: []int{0}, buildKeys: []int{0}, estRows: -1}
			b.ReportAllocs()
			var out int
			var st Stats
			for b.Loop() {
				r, err := e.run(context.Background(), n)
				if err != nil {
					b.Fatal(err)
				}
				out = 0
				for r.Next() {
					out += int(r.RecordBatch().NumRows())
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				st = r.Stats()
				r.Release()
			}
			if tc.spill && st.Spill.Files == 0 && st.Spill.Held == 0 {
				b.Fatal("the join did not spill")
			}
			b.ReportMetric(float64(probeRows+buildRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(out), "rows-out")
			b.ReportMetric(float64(st.Spill.Bytes), "spilled-bytes")
			b.ReportMetric(float64(st.Spill.HeldBytes), "held-bytes")
			b.ReportMetric(float64(st.Spill.Rows), "spilled-rows")
			b.ReportMetric(float64(st.PeakMemory), "peak-bytes")
		})
	}
}
