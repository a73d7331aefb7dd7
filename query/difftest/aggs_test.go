//go:build duckdb

package difftest

import "testing"

// newAggQueries check FILTER (WHERE …), first, last, string_agg, the
// quantiles and approx_count_distinct against DuckDB over fx (600 rows in
// one batch, which both engines read in table order, so first, last and
// string_agg without ORDER BY agree) and lineitem (several workers;
// only order-free aggregates). approx_quantile is quiver's exact
// quantile_disc, compared with DuckDB's; quiver's approx_count_distinct
// is held within 5% of its exact count(DISTINCT) (DuckDB's own sketch
// misses that bound on lineitem's l_comment, so it is not compared).
var newAggQueries = []testQuery{
	{name: "filter grouped", ordered: true, sql: `
SELECT n, count(*) FILTER (WHERE x > 0), sum(n) FILTER (WHERE i > 0), avg(x) FILTER (WHERE s IS NOT NULL),
       count(DISTINCT s) FILTER (WHERE x < 0), min(s) FILTER (WHERE p = 'a'), max(d) FILTER (WHERE id % 2 = 0),
       stddev(x) FILTER (WHERE abs(x) < 1e6), count(x) FILTER (WHERE NULL), count(*)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "filter global", sql: `
SELECT count(*) FILTER (WHERE x > 0), sum(n) FILTER (WHERE false), count(*) FILTER (WHERE NULL), min(s) FILTER (WHERE n = 3),
       count(*) FILTER (WHERE x > 0) + count(*) FILTER (WHERE NOT x > 0), count(*)
FROM fx`},
	{name: "filter empty input", sql: `SELECT count(*) FILTER (WHERE x > 0), sum(n) FILTER (WHERE x > 0), first(s) FILTER (WHERE n > 1) FROM fx WHERE id < 0`},
	{name: "filter having and order by", ordered: true, sql: `
SELECT n, count(*) FILTER (WHERE x > 0) AS c FROM fx GROUP BY n HAVING count(*) FILTER (WHERE x > 0) > 15
ORDER BY count(*) FILTER (WHERE s <> '') DESC, n`},
	{name: "filter same aggregate twice", ordered: true, sql: `
SELECT p, sum(n) FILTER (WHERE x > 0), sum(n) FILTER (WHERE x <= 0), sum(n) FROM fx GROUP BY p ORDER BY p NULLS FIRST`},
	{name: "filter lineitem", ordered: true, sql: `
SELECT l_returnflag, count(*) FILTER (WHERE l_quantity > 25), sum(l_extendedprice) FILTER (WHERE l_discount > 0.05),
       count(DISTINCT l_suppkey) FILTER (WHERE l_shipmode = 'AIR'), avg(l_tax) FILTER (WHERE l_linestatus = 'F')
FROM lineitem GROUP BY l_returnflag ORDER BY l_returnflag`},
	{name: "first last grouped", ordered: true, sql: `
SELECT n, first(s), last(s), first(x), last(dm), first(ts), last(d), first(tz), last(i), first(s) FILTER (WHERE x > 0)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	// lineitem is one row group in DuckDB (read in order) and many
	// batches over several workers in quiver (ordered by row positions)
	{name: "first last lineitem", ordered: true, sql: `
SELECT l_returnflag, first(l_orderkey), last(l_comment), first(l_shipdate) FILTER (WHERE l_quantity > 40), last(l_linenumber), count(*)
FROM lineitem GROUP BY l_returnflag ORDER BY l_returnflag`},
	{name: "first last global", sql: `SELECT first(s), last(s), first(n), last(n), first(NULL), last(p) FROM fx`},
	{name: "first last one row", sql: `SELECT first(s), last(s), first(x), last(x) FROM fx WHERE id = 7`},
	{name: "first last empty", sql: `SELECT first(s), last(x) FROM fx WHERE id < 0`},
	{name: "string_agg grouped", ordered: true, sql: `
SELECT n, string_agg(s, '|'), string_agg(p, ', ' ORDER BY id DESC), listagg(s ORDER BY s DESC, id), group_concat(p, ';'),
       string_agg(n, '-' ORDER BY x NULLS FIRST, id), string_agg(s, NULL), string_agg(s ORDER BY i DESC NULLS LAST, id)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "string_agg global", sql: `SELECT string_agg(p, ''), string_agg(s, ' / ' ORDER BY d, id), listagg(p) FROM fx WHERE id < 100`},
	{name: "string_agg filtered", ordered: true, sql: `
SELECT p, string_agg(s, ',' ORDER BY id) FILTER (WHERE n > 3), string_agg(s, ',') FILTER (WHERE x < 0) FROM fx GROUP BY p ORDER BY p NULLS FIRST`},
	{name: "string_agg empty and one row", sql: `SELECT string_agg(s, ','), (SELECT string_agg(s, ',') FROM fx WHERE id = 9) FROM fx WHERE id < 0`},
	{name: "quantiles grouped", ordered: true, sql: `
SELECT n, median(x), median(i), median(dm), median(d), median(ts), median(tz), median(tm), quantile_cont(x, 0.1), quantile_disc(i, 0.9),
       quantile_disc(s, 0.5), median(s), quantile_cont(dm, 0.33), quantile_disc(d, 0.75), quantile_cont(ts, 0.9), quantile(dm, 0.2),
       quantile_disc(tm, 0.4)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "quantiles global", sql: `
SELECT median(n), quantile_disc(n, 0), quantile_disc(n, 1), quantile_cont(n, 1), quantile_cont(n, 0), quantile_cont(x, 0.5),
       median(x) FILTER (WHERE n > 5), quantile_disc(d, 0.001), quantile_cont(dm, 0.999)
FROM fx`},
	{name: "quantiles empty and one row", sql: `SELECT median(x), quantile_disc(s, 0.5), (SELECT median(dm) FROM fx WHERE id = 2) FROM fx WHERE id < 0`},
	{name: "approx_quantile", ordered: true, sql: `SELECT n, approx_quantile(i, 0.5), approx_quantile(d, 0.25) FROM fx GROUP BY n ORDER BY n NULLS FIRST`,
		duck: `SELECT n, quantile_disc(i, 0.5), quantile_disc(d, 0.25) FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "quantiles lineitem", ordered: true, sql: `
SELECT l_returnflag, median(l_quantity), quantile_disc(l_extendedprice, 0.9), quantile_cont(l_shipdate, 0.5), median(l_discount)
FROM lineitem GROUP BY l_returnflag ORDER BY l_returnflag`},
	{name: "approx_count_distinct", ordered: true, sql: `
SELECT n, abs(approx_count_distinct(i) - count(DISTINCT i)) <= 0.05 * count(DISTINCT i),
       abs(approx_count_distinct(s) - count(DISTINCT s)) <= 0.05 * count(DISTINCT s) + 1, approx_count_distinct(NULL)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`,
		duck: `SELECT n, true, true, 0 FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "approx_count_distinct lineitem", sql: `
SELECT abs(approx_count_distinct(l_orderkey) - count(DISTINCT l_orderkey)) <= 0.05 * count(DISTINCT l_orderkey),
       abs(approx_count_distinct(l_comment) - count(DISTINCT l_comment)) <= 0.05 * count(DISTINCT l_comment),
       abs(approx_count_distinct(l_extendedprice) - count(DISTINCT l_extendedprice)) <= 0.05 * count(DISTINCT l_extendedprice)
FROM lineitem`, duck: `SELECT true, true, true`},
	{name: "approx_count_distinct empty", sql: `SELECT approx_count_distinct(x) FROM fx WHERE id < 0`},
	{name: "as window functions", ordered: true, sql: `
SELECT id, median(x) OVER (PARTITION BY n), quantile_disc(s, 0.3) OVER (PARTITION BY n), stddev(x) OVER (PARTITION BY p),
       arg_min(s, id) OVER (PARTITION BY n), bool_or(x > 0) OVER (PARTITION BY p), count_if(x > 0) OVER (PARTITION BY n),
       first(s) OVER (PARTITION BY n ORDER BY id), last(s) OVER (PARTITION BY n ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
       quantile_cont(d, 0.5) OVER (PARTITION BY n), median(dm) OVER (), var_pop(i) OVER (PARTITION BY n, p)
FROM fx WHERE abs(x) < 1e6 ORDER BY id`},
	{name: "string_agg as a window function", ordered: true, sql: `
SELECT id, string_agg(s, '|') OVER (PARTITION BY n), listagg(p) OVER (PARTITION BY n) FROM fx WHERE id < 60 ORDER BY id`},
	{name: "window over aggregates", ordered: true, sql: `
SELECT n, median(x), median(median(x)) OVER (), string_agg(s, ',' ORDER BY id) FILTER (WHERE id < 40) FROM fx WHERE abs(x) < 1e6 GROUP BY n ORDER BY n NULLS FIRST`},
}

func TestNewAggregates(t *testing.T) { runQueries(t, newAggQueries) }
