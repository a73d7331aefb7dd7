//go:build duckdb

package difftest

import (
	"testing"
)

// everydayQueries are the spellings a DuckDB or PostgreSQL user writes
// without thinking: SELECT-list aliases in WHERE, HAVING and QUALIFY,
// x::T and DuckDB's type names in casts, GROUP BY ALL and ORDER BY ALL,
// VALUES lists as tables and subqueries in FROM without an alias.
var everydayQueries = []testQuery{
	// aliases: a column of FROM wins in WHERE, an aggregate's alias in HAVING
	{name: "alias in WHERE", sql: "SELECT id, i * 2 AS w FROM t WHERE w > 10"},
	{name: "alias shadowing a column in WHERE", sql: "SELECT id, i * 2 AS i FROM t WHERE i > 10"},
	{name: "alias in WHERE of a join", sql: "SELECT n_name, r_name AS rr FROM nation JOIN region ON n_regionkey = r_regionkey WHERE rr = 'ASIA'"},
	{name: "alias in WHERE beside a subquery", sql: "SELECT o_orderkey AS ok FROM orders WHERE ok < 100 AND o_custkey IN (SELECT c_custkey FROM customer WHERE c_acctbal > 0)"},
	{name: "aliases in GROUP BY and HAVING", sql: "SELECT k AS kk, sum(i) AS s, count(*) AS c FROM t GROUP BY kk HAVING s > 10 AND c > 1"},
	{name: "aggregate alias shadowing a column in HAVING", sql: "SELECT k, sum(i) AS i FROM t GROUP BY k HAVING i > 100"},
	// HAVING's conjuncts over keys alone filter the rows (rule_having.go)
	{name: "HAVING over a key and an aggregate", sql: "SELECT k, count(*), sum(i) FROM t GROUP BY k HAVING k > 2 AND count(*) > 1"},
	{name: "HAVING over a key, NULL or not", sql: "SELECT k, count(*), sum(f) FROM t GROUP BY k HAVING k IS NULL OR k < 3"},
	{name: "HAVING over keys by alias and position", sql: "SELECT k AS kk, i, count(*) FROM t GROUP BY kk, 2 HAVING kk <> 1 AND i + 1 > 3 AND count(*) >= 1"},
	{name: "HAVING over a float key", sql: "SELECT f, count(*) FROM t GROUP BY f HAVING f > 0"},
	{name: "HAVING over a key no group passes", sql: "SELECT k, count(*) FROM t GROUP BY k HAVING k > 1000000"},
	{name: "HAVING over GROUP BY ALL's keys", sql: "SELECT l_returnflag, l_linestatus, sum(l_quantity), count(*) FROM lineitem GROUP BY ALL HAVING l_returnflag <> 'R' AND l_linestatus = 'F'"},
	// conjuncts over a derived table move into its SELECT (from_derived_push.go); a date's cast comes off (rule_cast.go)
	{name: "filter into a derived projection", sql: "SELECT * FROM (SELECT id, i * 2 AS w, s FROM t) x WHERE w > 10 AND s IS NOT NULL"},
	{name: "filter into a derived aggregate", sql: "SELECT * FROM (SELECT k, count(*) AS c, sum(i) AS si FROM t GROUP BY k) x WHERE k > 1 AND c > 2"},
	{name: "filter over a derived table's lateral alias", sql: "SELECT * FROM (SELECT id, i * 2 AS w, w + 1 AS w1 FROM t) x WHERE w1 > 10"},
	{name: "filter into a derived table on a LEFT JOIN's inner side", sql: "SELECT n_name, x.c FROM nation LEFT JOIN (SELECT c_nationkey, count(*) AS c FROM customer GROUP BY c_nationkey) x ON n_nationkey = x.c_nationkey AND x.c > 5"},
	{name: "filter into a WITH of a date cast", sql: "WITH x AS (SELECT o_orderkey, CAST(o_orderdate AS TIMESTAMP) AS ts FROM orders) SELECT count(*), min(ts), max(ts) FROM x WHERE ts >= TIMESTAMP '1995-03-15 12:00:00' AND ts < TIMESTAMP '1996-01-01'"},
	{name: "a date's cast compared with timestamps", sql: "SELECT count(*) FROM orders WHERE CAST(o_orderdate AS TIMESTAMP) > TIMESTAMP '1995-06-30 23:59:59' AND o_orderdate::TIMESTAMP <= '1995-12-31 08:00:00'"},
	{name: "a date's cast BETWEEN timestamps", sql: "SELECT count(*) FROM orders WHERE CAST(o_orderdate AS TIMESTAMP) BETWEEN TIMESTAMP '1994-01-01 00:00:01' AND TIMESTAMP '1994-02-01 00:00:00'"},
	{name: "filter on a window's partition key", sql: "SELECT * FROM (SELECT id, k, i, row_number() OVER (PARTITION BY k ORDER BY id) AS rn FROM t) x WHERE k = 2 AND rn <= 3"},
	{name: "filter beside a window's partition key", sql: "SELECT * FROM (SELECT id, k, i, sum(i) OVER (PARTITION BY k ORDER BY id) AS s FROM t) x WHERE i > 100 AND id < 200 AND k IN (1, 3)"},
	// subqueries that are set operations (rule_setop_subquery.go)
	{name: "IN over a UNION", sql: "SELECT n_name FROM nation WHERE n_nationkey IN (SELECT r_regionkey FROM region UNION SELECT 24)"},
	{name: "NOT IN over an EXCEPT with NULLs", sql: "SELECT id, k FROM t WHERE k NOT IN (SELECT n FROM t WHERE id < 50 EXCEPT SELECT 3)"},
	{name: "EXISTS over an INTERSECT", sql: "SELECT count(*) FROM nation WHERE EXISTS (SELECT 1 FROM region INTERSECT SELECT 1)"},
	{name: "a scalar UNION ALL", sql: "SELECT n_name, (SELECT max(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) q) + n_regionkey FROM nation"},
	{name: "a scalar set operation", sql: "SELECT n_name FROM nation WHERE n_nationkey = (SELECT 5 UNION SELECT 5)"},
	{name: "IN over a UNION in the SELECT list", sql: "SELECT id, k IN (SELECT n FROM t WHERE id < 9 UNION ALL SELECT NULL) FROM t WHERE id < 100"},
	// NATURAL joins: USING the columns both sides name
	{name: "NATURAL JOIN", sql: "SELECT * FROM (SELECT n_nationkey AS k, n_name FROM nation) a NATURAL JOIN (SELECT n_nationkey AS k, n_regionkey FROM nation WHERE n_nationkey < 9) b"},
	{name: "RIGHT JOIN USING shows the column where the left has it", sql: "SELECT * FROM (SELECT k, n, i FROM t WHERE id < 40) a RIGHT JOIN (SELECT n, k, f FROM t WHERE id BETWEEN 30 AND 60) b USING (k, n)"},
	{name: "USING chained, then RIGHT", sql: "SELECT * FROM (SELECT 1 AS k, 2 AS n) a JOIN (SELECT 2 AS n, 1 AS k) b USING (n) RIGHT JOIN (SELECT 3 AS n, 4 AS z) c USING (n)"},
	{name: "RIGHT JOINs USING chained", sql: "SELECT *, n FROM (SELECT 1 AS k, 2 AS n) a RIGHT JOIN (SELECT 3 AS n, 1 AS k) b USING (n) RIGHT JOIN (SELECT 3 AS n, 4 AS z) c USING (n)"},
	{name: "NATURAL LEFT JOIN", sql: "SELECT * FROM (SELECT n_regionkey AS rk, n_name FROM nation) a NATURAL LEFT JOIN (SELECT r_regionkey AS rk, r_name FROM region WHERE r_regionkey < 3) b"},
	{name: "NATURAL RIGHT JOIN of two keys", sql: "SELECT * FROM (SELECT k, n, i FROM t WHERE id < 40) a NATURAL RIGHT JOIN (SELECT n, k, f FROM t WHERE id BETWEEN 30 AND 60) b"},
	{name: "NATURAL JOINs chained", sql: "SELECT * FROM (SELECT n_nationkey AS k, n_name FROM nation) a NATURAL JOIN (SELECT n_nationkey AS k, n_regionkey AS rk FROM nation) b NATURAL JOIN (SELECT r_regionkey AS rk, r_name FROM region) c"},
	{name: "USING chained", sql: "SELECT * FROM (SELECT n_nationkey AS k, n_name FROM nation) a JOIN (SELECT n_nationkey AS k, n_regionkey FROM nation) b USING (k) JOIN (SELECT n_nationkey AS k, n_comment FROM nation) c USING (k)"},
	{name: "IS [NOT] TRUE and FALSE", sql: "SELECT id, (i > 0) IS TRUE, (i > 0) IS NOT TRUE, b IS FALSE, b IS NOT FALSE, NULL IS TRUE FROM t"},
	{name: "IS NOT TRUE in WHERE", sql: "SELECT count(*) FROM t WHERE (i > 100 AND b) IS NOT TRUE"},
	// a TIMESTAMP join key whose build side has few distinct keys (agg/dense.go's dense index)
	{name: "a TIMESTAMP constant as a join key", sql: "SELECT count(*) FROM t y JOIN (SELECT k, TIMESTAMP '1995-07-30 00:00:00' AS c0 FROM t WHERE id < 40) x ON x.c0 = CAST(y.dt AS TIMESTAMP)"},
	{name: "one TIMESTAMP as a join key", sql: "SELECT count(*) FROM t y JOIN (SELECT max(CAST(dt AS TIMESTAMP)) AS c0 FROM t WHERE id < 40) x ON x.c0 = CAST(y.dt AS TIMESTAMP)"},
	// WITH over a set operation (cte_setop.go); a conjunct over a UNION ALL moves into each SELECT
	{name: "WITH of a UNION ALL, filtered", sql: "WITH u AS (SELECT n_nationkey AS k, n_name AS name FROM nation UNION ALL SELECT r_regionkey, r_name FROM region) SELECT * FROM u WHERE k < 3"},
	{name: "WITH of a UNION used twice", sql: "WITH u AS (SELECT k FROM t UNION SELECT n FROM t) SELECT count(*), (SELECT max(k) FROM u) FROM u WHERE k > 2"},
	{name: "WITH column list over an INTERSECT", sql: "WITH x(a) AS (SELECT k FROM t INTERSECT SELECT n FROM t) SELECT a FROM x WHERE a IS NOT NULL"},
	{name: "WITH of an EXCEPT joined", sql: "WITH x AS (SELECT n_regionkey AS r FROM nation EXCEPT SELECT 2) SELECT r_name FROM region JOIN x ON r_regionkey = x.r"},
	{name: "a derived UNION ALL filtered into each SELECT", sql: "SELECT g, count(*), sum(i) FROM (SELECT g, i FROM t WHERE k = 1 UNION ALL SELECT g, i * 2 FROM t WHERE k = 2) u WHERE i > 5 GROUP BY g"},
	{name: "a derived UNION ALL of mixed types filtered", sql: "SELECT * FROM (SELECT id, i AS v FROM t UNION ALL SELECT id, d FROM t) u WHERE v > 900 AND id < 1000"},
	{name: "alias in QUALIFY", sql: "SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY id) AS rn FROM t QUALIFY rn <= 2"},
	{name: "alias of an expression over a window call in QUALIFY", sql: "SELECT id, k, rank() OVER (PARTITION BY k ORDER BY i) * 10 AS r10 FROM t QUALIFY r10 = 10"},
	{name: "alias used twice", sql: "SELECT n_nationkey % 5 AS m FROM nation WHERE m = 1 OR m = 3"},
	{name: "an earlier item's alias in the SELECT list", sql: "SELECT id, i * 2 AS w, w + 1 AS w1, w1 * w FROM t"},
	{name: "an earlier alias of an aggregate", sql: "SELECT k, sum(i) AS si, si * 2, count(*) AS c, si / c FROM t GROUP BY k"},
	{name: "an earlier alias in a join", sql: "SELECT n_name, length(n_name) AS l, l * 2 AS l2 FROM nation JOIN region ON n_regionkey = r_regionkey WHERE l2 > 10"},
	{name: "if", sql: "SELECT id, if(i > 0, 'pos', 'neg'), if(b, i, -i), if(NULL, 1, 2) FROM t"},
	{name: "integer division is a DOUBLE", sql: "SELECT id, i / 7, 7 / 2, -7 / 2, i / NULLIF(k, 0), sum(i) OVER () / count(*) OVER () FROM t"},
	// x::T and DuckDB's type names
	{name: ":: casts", sql: "SELECT id, i::VARCHAR || 'x', s::VARCHAR, d::DOUBLE, f::INTEGER, dt::VARCHAR, '2024-01-02'::DATE + id::INT FROM t WHERE f BETWEEN -1e9 AND 1e9"},
	{name: ":: chains and precedence", sql: "SELECT id, -i::BIGINT, (i + 1)::VARCHAR::BIGINT * 2, i::DOUBLE / 3, CASE WHEN b THEN 1 ELSE 0 END::BOOLEAN FROM t"},
	{name: "casts to narrow integers", sql: "SELECT id, TRY_CAST(i * 1000 AS SMALLINT), TRY_CAST(i AS TINYINT), TRY_CAST(i * 100000 AS INTEGER), i::HUGEINT FROM t"},
	{name: "casts to BOOLEAN and NUMERIC", sql: "SELECT id, (i % 2)::BOOLEAN, CAST(d AS NUMERIC(12, 4)), d::DECIMAL, CAST(f AS DOUBLE PRECISION) FROM t"},
	{name: "casts in WHERE and GROUP BY", sql: "SELECT (i % 3)::VARCHAR AS m, count(*)::INT FROM t WHERE i::DOUBLE > 0 GROUP BY m"},
	{name: "TRY_CAST of text", sql: "SELECT s, TRY_CAST(s AS INT), TRY_CAST(s AS BOOLEAN), TRY_CAST(s AS DATE) FROM t"},
	// GROUP BY ALL, ORDER BY ALL
	{name: "GROUP BY ALL", sql: "SELECT k, g, i % 3 AS m, count(*), sum(d) FROM t GROUP BY ALL"},
	{name: "GROUP BY ALL of aggregates only", sql: "SELECT count(*), max(s) FROM t GROUP BY ALL"},
	{name: "GROUP BY ALL with a window", sql: "SELECT k, sum(i) AS si, rank() OVER (ORDER BY sum(i) DESC NULLS LAST) FROM t GROUP BY ALL"},
	{name: "ORDER BY ALL", ordered: true, sql: "SELECT k, g, count(*) FROM t GROUP BY ALL ORDER BY ALL"},
	{name: "ORDER BY ALL DESC NULLS FIRST", ordered: true, sql: "SELECT s, id FROM t WHERE id < 500 ORDER BY ALL DESC NULLS FIRST"},
	{name: "ORDER BY ALL of *", ordered: true, sql: "SELECT * FROM region ORDER BY ALL DESC"},
	// VALUES lists as tables, subqueries without an alias
	{name: "VALUES", sql: "VALUES (1, 'a', DATE '2024-01-01'), (2, NULL, NULL), (NULL, 'c', DATE '1999-12-31')"},
	{name: "VALUES of mixed numbers", sql: "VALUES (1, 2.5), (3, 4), (-7, 1e3)"},
	{name: "VALUES named by its alias", sql: "SELECT v.x, y || '!' FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y) WHERE x > 1"},
	{name: "VALUES joined", sql: "SELECT n_name, tag FROM nation JOIN (VALUES (1, 'one'), (2, 'two'), (3, NULL)) t(k, tag) ON n_nationkey = k"},
	{name: "VALUES in IN", sql: "SELECT count(*) FROM orders WHERE o_custkey IN (SELECT c FROM (VALUES (1), (2), (4)) v(c))"},
	{name: "* EXCLUDE", sql: "SELECT * EXCLUDE (n_comment, n_regionkey) FROM nation"},
	{name: "t.* EXCLUDE in a join", sql: "SELECT n.* EXCLUDE n_comment, r.* EXCLUDE (r_comment, r_regionkey) FROM nation n JOIN region r ON n_regionkey = r_regionkey"},
	{name: "WITHIN GROUP", sql: "SELECT o_orderpriority, percentile_cont(0.5) WITHIN GROUP (ORDER BY o_totalprice), percentile_cont(0.9) WITHIN GROUP (ORDER BY o_totalprice DESC), percentile_disc(0.25) WITHIN GROUP (ORDER BY o_custkey), percentile_disc(0.3) WITHIN GROUP (ORDER BY o_totalprice DESC) FROM orders GROUP BY ALL"},
	{name: "a subquery without an alias", sql: "SELECT * FROM (SELECT count(*) AS n FROM nation), (SELECT max(r_name) AS m FROM region)"},
}

func TestEveryday(t *testing.T) { runQueriesMeantToRun(t, everydayQueries) }
