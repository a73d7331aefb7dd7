//go:build duckdb

package difftest

import (
	"testing"
)

// groupingSetsQueries compare ROLLUP, CUBE and GROUPING SETS with DuckDB
// (build_groupingsets.go): NULL keys in the data beside the NULLs of
// subtotals (GROUPING tells them apart), expressions, aliases and
// positions as keys, HAVING, ORDER BY with NULLS FIRST and LIMIT, joins,
// empty input, and MySQL's WITH ROLLUP.
var groupingSetsQueries = []testQuery{
	{name: "ROLLUP of two keys with NULLs", sql: "SELECT k, g, count(*), sum(i), GROUPING(k), GROUPING(g) FROM t GROUP BY ROLLUP (k, g)"},
	{name: "CUBE with GROUPING of both", sql: "SELECT k, g, count(*), GROUPING(k, g) FROM t GROUP BY CUBE (k, g)"},
	{name: "GROUPING SETS with the empty set", sql: "SELECT k, g, n, count(*), min(s) FROM t GROUP BY GROUPING SETS ((k, g), (n), ())"},
	{name: "a key beside ROLLUP", sql: "SELECT g, k, n, sum(f) FROM t GROUP BY g, ROLLUP (k, n)"},
	{name: "ROLLUP of a composite", sql: "SELECT k, g, n, count(*) FROM t GROUP BY ROLLUP ((k, g), n)"},
	{name: "HAVING on an aggregate and a key", sql: "SELECT k, g, count(*) AS c FROM t GROUP BY ROLLUP (k, g) HAVING count(*) > 20 AND (k IS NULL OR k < 4)"},
	{name: "keys that are expressions", sql: "SELECT year(dt), month(dt), count(*), sum(d) FROM t GROUP BY ROLLUP (year(dt), month(dt))"},
	{name: "keys by alias", sql: "SELECT k AS kk, g AS gg, sum(i) FROM t GROUP BY CUBE (kk, gg)"},
	{name: "keys by position", sql: "SELECT k, g, sum(i) FROM t GROUP BY GROUPING SETS ((1), (2))"},
	{name: "a label from GROUPING", sql: "SELECT CASE WHEN GROUPING(g) = 1 THEN 'all' ELSE g END AS label, count(*) FROM t GROUP BY ROLLUP (g)"},
	{name: "ORDER BY with NULLS FIRST", ordered: true, sql: "SELECT k, g, count(*) FROM t GROUP BY ROLLUP (k, g) ORDER BY k NULLS FIRST, g DESC NULLS FIRST, 3"},
	{name: "ORDER BY an aggregate and LIMIT", ordered: true, sql: "SELECT k, sum(i) AS si FROM t GROUP BY ROLLUP (k) ORDER BY si DESC NULLS LAST, k LIMIT 4"},
	{name: "over a join", sql: "SELECT r_name, n_name, count(*), sum(c_acctbal) FROM customer JOIN nation ON c_nationkey = n_nationkey JOIN region ON n_regionkey = r_regionkey GROUP BY ROLLUP (r_name, n_name)"},
	{name: "over no rows", sql: "SELECT k, count(*), sum(i) FROM t WHERE id < 0 GROUP BY ROLLUP (k)"},
	{name: "a || key, NULL with a NULL side", sql: "SELECT g || '!', count(*), sum(i) FROM t GROUP BY ROLLUP (g || '!')"},
	{name: "CUBE without aggregates", sql: "SELECT k, g FROM t GROUP BY CUBE (k, g)"},
	{name: "ROLLUP without aggregates over no rows", sql: "SELECT k, g FROM t WHERE id < 0 GROUP BY ROLLUP (k, g)"},
	{name: "HAVING without aggregates", sql: "SELECT k, 1 AS one FROM t GROUP BY ROLLUP (k) HAVING k IS NULL"},
	{name: "WITH ROLLUP", sql: "SELECT k, g, count(*) FROM t GROUP BY k, g WITH ROLLUP", duck: "SELECT k, g, count(*) FROM t GROUP BY ROLLUP (k, g)"},
	{name: "in a derived table", sql: "SELECT count(*), sum(c) FROM (SELECT k, g, count(*) AS c FROM t GROUP BY CUBE (k, g)) x WHERE k IS NULL"},
	{name: "in a WITH", sql: "WITH r AS (SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q FROM lineitem GROUP BY ROLLUP (l_returnflag, l_linestatus)) SELECT * FROM r WHERE q > 1000"},
}

func TestGroupingSets(t *testing.T) { runQueriesMeantToRun(t, groupingSetsQueries) }
