package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/datagen"
)

// Go benchmarks of the cells RunCache compares on the Comet relation
// (-bench.rows rows, default 500,000), for profiling one cell:
//
//	go test -run x -bench 'CacheScan/codec=auto/cols=6' -cpuprofile cpu.out ./bench
//
// MB/s (b.SetBytes) counts the Arrow buffer bytes of the columns a read
// asks for (none for count(*)); each sub-benchmark runs with GOMAXPROCS =
// goroutines. The peers: MemoryScan sums the records in place (the
// physical limit), ArrowGoScan decodes an arrow-go stream whole.

var benchCodecs = []string{"none", "lz4", "zstd:1", "zstd:3", "auto"}

var (
	benchRelOnce sync.Once
	benchRel     *relation
)

func benchRelation() *relation {
	benchRelOnce.Do(func() {
		recs := benchRecords()
		benchRel = &relation{
			spec: RelationSpec{Rows: *benchRows}, schema: datagen.CometSchema, recs: recs,
			bytes: ArrowBytes(recs), queries: cometQueries(*benchRows),
		}
	})
	return benchRel
}

// queryName is "cols=N" for a projection and "filter" for the filter.
func queryName(q *query) string {
	if q.filter != nil {
		return "filter"
	}
	return "cols=" + strings.TrimPrefix(q.label, "read ")
}

// queryBytes is the Arrow buffer bytes of the columns q reads.
func queryBytes(rel *relation, q *query) int64 {
	var n int64
	for _, r := range rel.recs {
		for _, c := range q.cols {
			n += arrowsize.Data(r.Column(c).Data())
		}
	}
	return n
}

func forCacheCodecs(b *testing.B, f func(b *testing.B, h *cacheHolder)) {
	for _, name := range benchCodecs {
		s, err := cache.ParseCodecSetting(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range benchGorouts {
			b.Run(fmt.Sprintf("codec=%s/goroutines=%d", name, g), func(b *testing.B) {
				c, err := cache.New(cache.Options{Budget: 1 << 62, Concurrency: g})
				if err != nil {
					b.Fatal(err)
				}
				h := newCacheHolder(benchRelation(), c, s, g)
				defer h.drop()
				withProcs(g, func() error { f(b, h); return nil })
			})
		}
	}
}

func BenchmarkCachePut(b *testing.B) {
	forCacheCodecs(b, func(b *testing.B, h *cacheHolder) {
		rel := benchRelation()
		var size int64
		b.SetBytes(rel.bytes)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if size, err = h.materialize(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rel.bytes)/float64(size), "ratio")
		b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

func BenchmarkCacheScan(b *testing.B) {
	forCacheCodecs(b, func(b *testing.B, h *cacheHolder) {
		size, err := h.materialize(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		forQueries(b, h, func(b *testing.B) { b.ReportMetric(float64(benchRelation().bytes)/float64(size), "ratio") })
	})
}

func BenchmarkMemoryScan(b *testing.B) {
	withProcs(1, func() error {
		forQueries(b, &memHolder{rel: benchRelation()}, nil)
		return nil
	})
}

func BenchmarkArrowGoScan(b *testing.B) {
	for _, codec := range []string{"lz4", "zstd"} {
		b.Run("codec="+codec, func(b *testing.B) {
			withProcs(1, func() error {
				h := newArrowGoHolder(benchRelation(), codec, 1, cache.RecyclingAllocator(), newBytesBuffer())
				if _, err := h.materialize(context.Background()); err != nil {
					b.Fatal(err)
				}
				forQueries(b, h, nil)
				return nil
			})
		})
	}
}

// forQueries runs a sub-benchmark per query of the relation on h; report,
// when set, adds metrics.
func forQueries(b *testing.B, h holder, report func(*testing.B)) {
	rel := benchRelation()
	for i := range rel.queries {
		q := &rel.queries[i]
		b.Run(queryName(q), func(b *testing.B) {
			b.SetBytes(queryBytes(rel, q))
			b.ReportAllocs()
			var decoded int
			for b.Loop() {
				var err error
				if _, decoded, _, err = h.read(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(decoded), "batches")
			b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			if report != nil {
				report(b)
			}
		})
	}
}
