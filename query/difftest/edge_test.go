//go:build duckdb

package difftest

import (
	"context"
	"testing"
)

// edgeQueries are hand-written corners over t: month arithmetic at month
// ends, NULLs in every position, LIKE's wildcards in the data, empty
// strings, empty and all-NULL inputs to aggregates, OFFSET past the end.
var edgeQueries = []testQuery{
	{name: "month end", ordered: true, sql: "SELECT id, dt + INTERVAL '1' MONTH AS m, dt - INTERVAL '1' YEAR AS y FROM t WHERE dt IS NOT NULL ORDER BY id LIMIT 300"},
	{name: "leap day", sql: "SELECT DATE '1996-02-29' + INTERVAL '1' YEAR, DATE '1996-01-31' + INTERVAL '1' MONTH, DATE '1996-03-31' - INTERVAL '1' MONTH FROM t LIMIT 1"},
	{name: "date range on dates", sql: "SELECT count(*) FROM t WHERE dt BETWEEN DATE '1994-02-28' AND DATE '1994-02-28' + INTERVAL '2' DAY"},
	// quiver's LIKE escapes with backslash by default (MySQL's and
	// Postgres' rule); DuckDB has no default escape, so it is told.
	{name: "like wildcards in data", ordered: true,
		sql:  `SELECT id, s FROM t WHERE s LIKE 'a%b' OR s LIKE '\_c' OR s LIKE '_' ORDER BY id`,
		duck: `SELECT id, s FROM t WHERE s LIKE 'a%b' OR s LIKE '\_c' ESCAPE '\' OR s LIKE '_' ORDER BY id`},
	{name: "empty string", sql: "SELECT count(*), count(s), min(s), max(s) FROM t WHERE s = '' OR s IS NULL"},
	{name: "empty input", sql: "SELECT count(*), count(i), sum(i), avg(f), min(s), max(dt), sum(d) FROM t WHERE id < 0"},
	{name: "all-NULL batch", sql: "SELECT count(i), sum(i), min(i), max(i), avg(i) FROM t WHERE id BETWEEN 512 AND 767"},
	{name: "group with empty input", sql: "SELECT g, count(*) FROM t WHERE id < 0 GROUP BY g"},
	{name: "NULL group key", ordered: true, sql: "SELECT g, k, count(*), sum(d) FROM t GROUP BY g, k ORDER BY g NULLS FIRST, k DESC NULLS FIRST"},
	{name: "offset past the end", sql: "SELECT id FROM t ORDER BY id LIMIT 10 OFFSET 5000"},
	{name: "limit 0", sql: "SELECT id FROM t LIMIT 0"},
	{name: "NOT IN with NULL", sql: "SELECT count(*) FROM t WHERE i NOT IN (1, 2, NULL)"},
	{name: "IN with NULL", sql: "SELECT count(*) FROM t WHERE i IN (1, 2, NULL) OR i IS NULL"},
	{name: "three-valued NOT", sql: "SELECT count(*) FROM t WHERE NOT (i > 0 AND b)"},
	{name: "CASE without ELSE", ordered: true, sql: "SELECT id, CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' END AS sign FROM t ORDER BY id LIMIT 100"},
	{name: "COALESCE of all NULL", sql: "SELECT count(COALESCE(i, k)), count(*) FROM t WHERE i IS NULL AND k IS NULL"},
	{name: "decimal scales", ordered: true, sql: "SELECT id, d * d AS sq, d + 0.001 AS p, d * 1.5 - 2 AS q FROM t WHERE d IS NOT NULL ORDER BY id LIMIT 100"},
	{name: "decimal sum and avg", sql: "SELECT sum(d), avg(d), min(d), max(d), sum(d * n) FROM t"},
	{name: "float ordering with nulls", ordered: true, sql: "SELECT f, id FROM t ORDER BY f DESC NULLS FIRST, id LIMIT 50"},
	{name: "string ordering", ordered: true, sql: "SELECT s, count(*) FROM t GROUP BY s ORDER BY s NULLS FIRST"},
	{name: "bool ordering", ordered: true, sql: "SELECT b, count(*) FROM t GROUP BY b ORDER BY b NULLS LAST"},
	{name: "count distinct", sql: "SELECT count(DISTINCT s), count(DISTINCT dt), count(DISTINCT d), count(DISTINCT b), count(DISTINCT f) FROM t"},
	{name: "having on avg", ordered: true, sql: "SELECT k, avg(f) FROM t GROUP BY k HAVING avg(f) > 0 OR k IS NULL ORDER BY k"},
	{name: "cast to char", ordered: true, sql: "SELECT id, CAST(d AS CHAR) AS ds, CAST(dt AS CHAR) AS dts FROM t ORDER BY id LIMIT 50"},
	{name: "cast from char", sql: "SELECT CAST('1995-03-15' AS DATE), CAST('12.345' AS DECIMAL(10,2)), CAST('-7' AS DOUBLE) FROM t LIMIT 1"},
	{name: "int min max mixed", sql: "SELECT min(n), max(n), sum(n), min(i + n), max(-i) FROM t"},
	// || concatenates (it was parsed as OR), NULL when either side is;
	// other types are converted as CAST to VARCHAR.
	{name: "concat", ordered: true, sql: "SELECT id, s || '-' || s, '<' || s || '>', s || NULL, 'n=' || i, s || CAST(dt AS CHAR) FROM t ORDER BY id LIMIT 300"},
	{name: "concat and arithmetic", ordered: true, sql: "SELECT id, i + 1 || 'x', 'x' || i * 2 + 1, -i || n - 1, (i || '1') || n % 7 FROM t ORDER BY id LIMIT 300"},
	{name: "concat in WHERE and GROUP BY", ordered: true, sql: "SELECT s || 'x' AS sx, count(*) FROM t WHERE s || 'x' > 'b' GROUP BY s || 'x' ORDER BY sx NULLS FIRST"},
	// SELECT without FROM answers one row.
	{name: "no FROM", sql: "SELECT 1 + 1, 'a' || 'b', DATE '1996-02-29' + INTERVAL '1' YEAR"},
	{name: "no FROM, WHERE false", sql: "SELECT 1 WHERE 1 > 2"},
}

func TestEdges(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range edgeQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
}
