package query

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
	"github.com/quiverdb/quiver/spill"
)

var groupBySF = flag.Float64("groupby-sf", 0.1, "TPC-H scale factor of BenchmarkGroupBySpill (0.1: 600,572 rows, 150,000 orders; 1: 6M rows, 1.5M orders)")

// groupByQueries are high-cardinality GROUP BYs: one group per order.
var groupByQueries = []struct{ name, sql string }{
	{"orderkey", `SELECT l_orderkey, count(*), sum(l_quantity), sum(l_extendedprice), avg(l_discount),
		min(l_shipdate), max(l_comment) FROM lineitem GROUP BY l_orderkey`},
	{"orderkey-distinct", `SELECT l_orderkey, count(DISTINCT l_suppkey), sum(l_quantity) FROM lineitem GROUP BY l_orderkey`},
}

// groupBySpillLimit is a memory limit that forces GROUP BY l_orderkey to
// spill at scale factor sf (in memory its groups take about 500 MB at SF
// 1) and that DuckDB can work in (it fails with 4 MiB at SF 0.1).
func groupBySpillLimit(sf float64) int64 { return max(16<<20, int64(sf*160*(1<<20))) }

// BenchmarkGroupBySpill answers GROUP BY l_orderkey over TPC-H lineitem
// (-groupby-sf, default 0.1) in memory and forced to spill under a memory
// limit of 160 MiB per unit of scale factor (16 MiB at least), with each
// spill codec. It reports input rows/s, the bytes and files spilled per
// query, and the peak of the memory the query accounted. The DuckDB peer
// (same data, same machine) is BenchmarkGroupByDuckDB, with -tags duckdb.
//
//	go test -run XXX -bench GroupBySpill -benchtime 5x ./query/
//	go test -run XXX -bench GroupBySpill -benchtime 3x ./query/ -args -groupby-sf 1
func BenchmarkGroupBySpill(b *testing.B) {
	sf := *groupBySF
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, sf, tpch.LineitemTable); err != nil {
		b.Fatal(err)
	}
	info, err := c.Info(tpch.LineitemTable)
	if err != nil {
		b.Fatal(err)
	}
	limit := groupBySpillLimit(sf)
	for _, q := range groupByQueries {
		b.Run(fmt.Sprintf("q=%s/mode=memory", q.name), func(b *testing.B) {
			benchGroupBy(b, New(c, Options{MemoryLimit: 1 << 34}), q.sql, info.Rows)
		})
		for _, cd := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}} {
			b.Run(fmt.Sprintf("q=%s/mode=spill/codec=%s", q.name, cd), func(b *testing.B) {
				m, err := spill.NewManager(spill.Config{Dir: b.TempDir(), Codec: cd})
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				benchGroupBy(b, New(c, Options{MemoryLimit: limit, Spill: m}), q.sql, info.Rows)
			})
		}
	}
}

func benchGroupBy(b *testing.B, e *Engine, sql string, rows int64) {
	b.ReportAllocs()
	var st Stats
	var groups int64
	for b.Loop() {
		r, err := e.Query(context.Background(), sql)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		st = r.Stats()
		groups = st.Rows
		r.Release()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(groups), "groups")
	b.ReportMetric(float64(st.Spill.Bytes), "spilled-bytes/op")
	b.ReportMetric(float64(st.Spill.Files), "spill-files/op")
	b.ReportMetric(float64(st.Spill.HeldBytes), "held-bytes/op")
	b.ReportMetric(float64(st.Spill.Rows), "spilled-rows/op")
	b.ReportMetric(float64(st.PeakMemory)/(1<<20), "peak-MiB")
}
