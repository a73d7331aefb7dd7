//go:build duckdb

package difftest

import (
	"context"
	"strings"
	"testing"
)

// tpchQueries are TPC-H Q1 and Q6 as the spec writes them (Q1 with the
// spec's DELTA = 90), and single-table rewrites of others: their
// lineitem part, with the other tables' columns left out.
var tpchQueries = []testQuery{
	{name: "Q1", ordered: true, sql: `
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`},
	{name: "Q6", sql: `
SELECT sum(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01'
  AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24`},
	{name: "Q3 lineitem part", ordered: true, sql: `
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem WHERE l_shipdate > DATE '1995-03-15'
GROUP BY l_orderkey ORDER BY revenue DESC, l_orderkey LIMIT 10`},
	{name: "Q4 lineitem part", sql: `
SELECT count(DISTINCT l_orderkey) AS late_orders FROM lineitem
WHERE l_commitdate < l_receiptdate
  AND l_shipdate >= DATE '1993-07-01' AND l_shipdate < DATE '1993-07-01' + INTERVAL '3' MONTH`},
	{name: "Q10 lineitem part", ordered: true, sql: `
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*) AS line_count
FROM lineitem
WHERE l_returnflag = 'R' AND l_receiptdate >= DATE '1993-10-01' AND l_receiptdate < DATE '1993-10-01' + INTERVAL '3' MONTH
GROUP BY l_orderkey ORDER BY revenue DESC, l_orderkey LIMIT 20`},
	{name: "Q12 lineitem part", ordered: true, sql: `
SELECT l_shipmode,
       sum(CASE WHEN l_commitdate < l_receiptdate AND l_shipdate < l_commitdate THEN 1 ELSE 0 END) AS late,
       count(*) AS all_lines
FROM lineitem
WHERE l_shipmode IN ('MAIL', 'SHIP')
  AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR
GROUP BY l_shipmode ORDER BY l_shipmode`},
	{name: "Q14 lineitem part", sql: `
SELECT 100.00 * sum(CASE WHEN l_shipmode LIKE 'R%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM lineitem
WHERE l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1995-09-01' + INTERVAL '1' MONTH`},
	{name: "Q15 revenue view", ordered: true, sql: `
SELECT l_suppkey AS supplier_no, sum(l_extendedprice * (1 - l_discount)) AS total_revenue
FROM lineitem
WHERE l_shipdate >= DATE '1996-01-01' AND l_shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH
GROUP BY l_suppkey ORDER BY total_revenue DESC, supplier_no LIMIT 10`},
	{name: "Q16 lineitem part", ordered: true, sql: `
SELECT l_shipmode, count(DISTINCT l_suppkey) AS supplier_cnt FROM lineitem
WHERE l_shipinstruct <> 'NONE' GROUP BY l_shipmode ORDER BY supplier_cnt DESC, l_shipmode`},
	{name: "Q17 lineitem part", ordered: true, sql: `
SELECT l_partkey, avg(l_quantity) AS avg_qty, sum(l_extendedprice) / 7.0 AS avg_yearly
FROM lineitem WHERE l_partkey < 100 GROUP BY l_partkey ORDER BY l_partkey`},
	{name: "Q18 lineitem part", ordered: true, sql: `
SELECT l_orderkey, sum(l_quantity) AS qty FROM lineitem
GROUP BY l_orderkey HAVING sum(l_quantity) > 250 ORDER BY qty DESC, l_orderkey`},
	{name: "Q19 lineitem part", sql: `
SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem
WHERE (l_quantity >= 1 AND l_quantity <= 1 + 10 AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (l_quantity >= 10 AND l_quantity <= 10 + 10 AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (l_quantity >= 20 AND l_quantity <= 20 + 10 AND l_shipmode IN ('AIR', 'REG AIR') AND l_shipinstruct = 'DELIVER IN PERSON')`},
	{name: "Q20 lineitem part", ordered: true, sql: `
SELECT l_partkey, l_suppkey, 0.5 * sum(l_quantity) AS half_qty FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR AND l_partkey BETWEEN 100 AND 150
GROUP BY l_partkey, l_suppkey ORDER BY l_partkey, l_suppkey`},
	{name: "Q21 lineitem part", ordered: true, sql: `
SELECT l_suppkey, count(*) AS numwait FROM lineitem WHERE l_receiptdate > l_commitdate
GROUP BY l_suppkey ORDER BY numwait DESC, l_suppkey LIMIT 100`},
	{name: "top comments", ordered: true, sql: `
SELECT l_comment, l_partkey FROM lineitem ORDER BY l_comment, l_partkey LIMIT 100`},
	{name: "count", sql: `SELECT count(*) FROM lineitem`},
	{name: "count orderkey range", sql: `SELECT count(*) FROM lineitem WHERE l_orderkey BETWEEN 10000 AND 20000`},
	{name: "count shipdate range", sql: `SELECT count(*) FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'`},
	{name: "min max", sql: `
SELECT min(l_shipdate), max(l_shipdate), min(l_comment), max(l_comment), min(l_extendedprice), max(l_tax),
       count(DISTINCT l_shipmode), count(l_comment) FROM lineitem`},
	{name: "cast and coalesce", ordered: true, sql: `
SELECT l_orderkey, l_linenumber, CAST(l_quantity AS DOUBLE) * 1.5 AS q, CAST(l_extendedprice AS DECIMAL(12,1)) AS p,
       COALESCE(CASE WHEN l_discount > 0.05 THEN l_shipmode END, 'cheap') AS m, CAST(l_linenumber AS CHAR) AS ln
FROM lineitem WHERE l_orderkey < 100 ORDER BY l_orderkey, l_linenumber`},
	{name: "offset", ordered: true, sql: `
SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem
ORDER BY l_shipdate DESC, l_orderkey, l_linenumber LIMIT 15 OFFSET 1000`},
}

func TestTPCH(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range tpchQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
	if n.refused > 0 {
		t.Errorf("both engines refused queries meant to run:\n%s", strings.Join(n.refusals, "\n"))
	}
}
