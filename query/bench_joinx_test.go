package query

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
)

// BenchmarkTPCHJoinStrategy runs the TPC-H queries in which the planner's
// rule partitions a join (a build side of DefaultBroadcastJoinBytes or
// more, at run time) with every join broadcast and with the rule's
// choice, on 2 workers; QUIVER_BENCH_SF sets the scale factor (default
// 1). Queries the rule leaves broadcast are skipped: both runs would be
// the same plan.
//
//	QUIVER_BENCH_SF=1 go test ./query -run XXX -bench TPCHJoinStrategy -benchtime 3x -count 3
func BenchmarkTPCHJoinStrategy(b *testing.B) {
	c := benchTPCHCache(b)
	auto := New(c, Options{Workers: 2})
	broadcast := New(c, Options{Workers: 2, BroadcastJoinBytes: 1 << 62})
	for n := 1; n <= tpch.NumQueries; n++ {
		sql := tpch.Query(n)
		text, err := auto.Explain(context.Background(), "EXPLAIN ANALYZE "+sql)
		if err != nil {
			b.Fatal(err)
		}
		parts := strings.Count(text, "partitioned to ")
		if parts == 0 {
			continue
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "partitioned: ") {
				b.Logf("Q%02d: %s", n, strings.TrimSpace(line))
			}
		}
		for _, s := range []struct {
			name string
			e    *Engine
		}{{"broadcast", broadcast}, {"rule", auto}} {
			b.Run(fmt.Sprintf("Q%02d/joins-partitioned=%d/%s", n, parts, s.name), func(b *testing.B) {
				for b.Loop() {
					drainQuery(b, s.e, sql)
				}
			})
		}
	}
}

// BenchmarkJoinStrategy joins TPC-H lineitem with orders on the order key
// (quiver bench shuffle's "lineitem ⋈ orders") broadcast and partitioned
// on 2 workers; QUIVER_BENCH_SF sets the scale factor (default 1).
//
//	go test ./query -run XXX -bench JoinStrategy -benchtime 5x -count 3
func BenchmarkJoinStrategy(b *testing.B) {
	c := benchTPCHCache(b, "lineitem", "orders")
	const sql = "SELECT count(*), sum(l_extendedprice), sum(o_totalprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey"
	for _, s := range []struct {
		name  string
		bytes int64
	}{{"broadcast", 1 << 62}, {"partitioned", -1}} {
		e := New(c, Options{Workers: 2, BroadcastJoinBytes: s.bytes})
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				drainQuery(b, e, sql)
			}
		})
	}
}

// BenchmarkGroupByExchange runs a GROUP BY of 2 M rows into 1 M groups
// (int64 keys, hashed: not dense) through the hash exchange on 2
// workers: what moving its partitioning from shuffle.Split to the
// Repartitioner changed (BENCHMARKS §16e, runs of the two builds
// alternated).
//
//	go test ./query -run XXX -bench GroupByExchange -benchtime 5x -count 3
func BenchmarkGroupByExchange(b *testing.B) {
	const rows = 2_000_000
	c, err := cache.New(cache.Options{Budget: 1 << 32})
	if err != nil {
		b.Fatal(err)
	}
	benchTable(b, c, "g", rows, func(i int) (int64, int64) { return int64(i%(rows/2)) * 7919, int64(i) })
	e := New(c, Options{Workers: 2, Exchange: true})
	for b.Loop() {
		drainQuery(b, e, "SELECT k, sum(v), count(*) FROM g GROUP BY k")
	}
}

// benchTPCHCache loads the TPC-H tables (all, or those named) at the
// scale factor QUIVER_BENCH_SF says (default 1) into a cache.
func benchTPCHCache(b *testing.B, tables ...string) *cache.Cache {
	sf := 1.0
	if s := os.Getenv("QUIVER_BENCH_SF"); s != "" {
		var err error
		if sf, err = strconv.ParseFloat(s, 64); err != nil {
			b.Fatal(err)
		}
	}
	c, err := cache.New(cache.Options{Budget: 1 << 36})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, sf, tables...); err != nil {
		b.Fatal(err)
	}
	return c
}
