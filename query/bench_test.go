package query

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
)

// BenchmarkTPCH runs TPC-H queries over lineitem at SF 0.1 in the cache.
// `quiver bench query` measures the same against DuckDB (with -tags duckdb).
func BenchmarkTPCH(b *testing.B) {
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, 0.1, "lineitem"); err != nil {
		b.Fatal(err)
	}
	e := New(c, Options{})
	for _, q := range []struct{ name, sql string }{
		{"Q1", `SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
			sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
			avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
			FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
			GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`},
		{"Q6", `SELECT sum(l_extendedprice * l_discount) FROM lineitem
			WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL 1 YEAR
			AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24`},
		{"count", `SELECT count(*) FROM lineitem`},
		{"pruned-count", `SELECT count(*) FROM lineitem WHERE l_orderkey BETWEEN 300000 AND 306000`},
		{"top100", `SELECT l_comment, l_partkey FROM lineitem ORDER BY l_comment LIMIT 100`},
		{"window", `SELECT max(rn), sum(running) FROM (
			SELECT row_number() OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber) AS rn,
			sum(l_extendedprice) OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber) AS running
			FROM lineitem) x`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				drainQuery(b, e, q.sql)
			}
		})
	}
}

// BenchmarkRowFilter compares WHERE evaluated by the scan's row filter
// (the default) with the same WHERE in the engine's Filter (NoPruning),
// over lineitem at SF 0.1: a string IN with a date range, a one-letter
// equality, and a LIKE prefix over the comments.
func BenchmarkRowFilter(b *testing.B) {
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, 0.1, "lineitem"); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"shipmode", `SELECT sum(l_quantity) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP')
			AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'`},
		{"flag", `SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE l_returnflag = 'R'`},
		{"comment", `SELECT count(*) FROM lineitem WHERE l_comment LIKE 'ca%'`},
	} {
		for _, where := range []string{"scan", "engine"} {
			e := New(c, Options{NoPruning: where == "engine"})
			b.Run("q="+q.name+"/where="+where, func(b *testing.B) {
				for b.Loop() {
					drainQuery(b, e, q.sql)
				}
			})
		}
	}
}

// drainQuery runs sql and reads its result to the end.
func drainQuery(b *testing.B, e *Engine, sql string) {
	r, err := e.Query(context.Background(), sql)
	if err != nil {
		b.Fatal(err)
	}
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	r.Release()
}
