package shuffle

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// benchStatuses are Spark's MapStatusesSerDeserBenchmark statuses (a host
// per map, sizes 1 + uniform [0, 1 GiB)), fewer of them.
func benchStatuses(maps, blocks int) []*MapStatus {
	rng := rand.New(rand.NewPCG(912, 0))
	sizes := make([]int64, blocks)
	st := make([]*MapStatus, maps)
	for i := range st {
		for j := range sizes {
			sizes[j] = 1 + int64(rng.Float64()*(1<<30))
		}
		st[i] = NewMapStatus(fmt.Sprintf("node%d.spark.apache.org:1000", i), int64(i), sizes, StatusConfig{})
	}
	return st
}

// How fast statuses serialize and deserialize, and how small they get
// (quiver bench shuffle runs the full-size comparison with Spark).
func BenchmarkStatuses(b *testing.B) {
	for _, blocks := range []int{10, 1000} {
		st := benchStatuses(20_000, blocks)
		z := codec.Setting{Kind: codec.Zstd, Level: 1}
		enc, err := AppendStatuses(nil, st, blocks, z)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("op=serialize/blocks=%d", blocks), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(st) * blocks))
			for b.Loop() {
				if _, err := AppendStatuses(nil, st, blocks, z); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(enc))/float64(len(st)), "B/status")
		})
		b.Run(fmt.Sprintf("op=every-status/blocks=%d", blocks), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(st) * blocks))
			for b.Loop() {
				v, err := DecodeStatuses(enc, DecodeLimits{})
				if err != nil {
					b.Fatal(err)
				}
				for m := range v.Maps() {
					_ = v.Status(m)
				}
			}
		})
		b.Run(fmt.Sprintf("op=deserialize/blocks=%d", blocks), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(st) * blocks))
			for b.Loop() {
				if _, err := DecodeStatuses(enc, DecodeLimits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// What building a highly compressed status costs, on the "skewed"
// distribution of Spark's HighlyCompressedMapStatusBenchmark (every 500th
// block up to 512 MiB, the rest up to 64 KiB). Spark (JDK 21, Apple M4):
// 7.2 / 14.8 / 53 µs at 2,048 / 10,000 / 50,000 partitions with skew off,
// 18 / 56 / 376 µs with skewed sizes recorded.
func BenchmarkNewMapStatusHighly(b *testing.B) {
	for _, n := range []int{2048, 10_000, 50_000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		sizes := make([]int64, n)
		for i := range sizes {
			if i%500 == 0 {
				sizes[i] = rng.Int64N(512 << 20)
			} else {
				sizes[i] = rng.Int64N(64 << 10)
			}
		}
		for _, c := range []struct {
			name string
			cfg  StatusConfig
		}{{"spark", StatusConfig{AverageBound: -1}}, {"average-bound", StatusConfig{}}} {
			b.Run(fmt.Sprintf("rule=%s/partitions=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				var s *MapStatus
				for b.Loop() {
					s = NewMapStatus("w", 0, sizes, c.cfg)
				}
				b.ReportMetric(float64(s.Accurate()), "accurate")
			})
		}
	}
}
