//go:build duckdb

package difftest

import (
	"context"
	"testing"
)

// funcQueries check EXTRACT, date_part and its one-field functions,
// substring and LIKE against DuckDB: TPC-H's uses over lineitem, every
// field of t's dates, and substring's corners (start ≤ 0, negative
// lengths, windows partly or wholly outside the string) over t.s, which
// holds non-ASCII text, and over literals. DuckDB's fast path for columns
// whose statistics say ASCII clamps a window's start into the string
// first (duckdb#24766, fixed after the version tested), so the corners
// stay off lineitem's ASCII columns.
var funcQueries = []testQuery{
	// TPC-H Q7, Q8 and Q9 group by the year of a date
	{name: "Q7 shipping year", ordered: true, sql: `
SELECT extract(year FROM l_shipdate) AS l_year, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
GROUP BY l_year ORDER BY l_year`},
	{name: "Q9 year and mode", ordered: true, sql: `
SELECT l_shipmode, extract(year FROM l_shipdate) AS o_year, sum(l_quantity), count(*)
FROM lineitem GROUP BY l_shipmode, o_year ORDER BY l_shipmode, o_year DESC`},
	{name: "year in WHERE", sql: `SELECT count(*), sum(l_quantity) FROM lineitem WHERE extract(year FROM l_shipdate) = 1994 AND extract(month FROM l_shipdate) IN (1, 2)`},
	// TPC-H Q22 groups by the first two characters of a phone number
	{name: "Q22 country code", ordered: true, sql: `
SELECT substring(l_shipinstruct FROM 1 FOR 2) AS code, count(*), sum(l_extendedprice)
FROM lineitem WHERE substring(l_shipmode FROM 1 FOR 2) IN ('AI', 'MA', 'TR')
GROUP BY code ORDER BY code`},
	{name: "substring of lineitem", ordered: true, sql: `
SELECT l_orderkey, l_linenumber, substring(l_comment, 3, 5), substr(l_shipmode, 2), substring(l_shipinstruct FROM 0 FOR 4),
       substring(l_comment, -1), substring(l_comment, -5)
FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 500`},
	// TPC-H's LIKE patterns (Q2, Q9, Q13, Q14, Q16, Q20) on lineitem's text
	{name: "LIKE %special%requests%", sql: `SELECT count(*) FROM lineitem WHERE l_comment LIKE '%special%requests%'`},
	{name: "NOT LIKE %special%requests%", sql: `SELECT count(*) FROM lineitem WHERE l_comment NOT LIKE '%special%requests%'`},
	{name: "LIKE %PERSON", sql: `SELECT count(*) FROM lineitem WHERE l_shipinstruct LIKE '%PERSON'`},
	{name: "LIKE furious%", sql: `SELECT count(*) FROM lineitem WHERE l_comment LIKE 'furious%'`},
	{name: "LIKE %ly%ly%", sql: `SELECT count(*) FROM lineitem WHERE l_comment LIKE '%ly%ly%'`},
	{name: "LIKE _a%e_", sql: `SELECT count(*) FROM lineitem WHERE l_comment LIKE '_a%e_'`},
	// every field of a date, NULLs among them
	{name: "date fields", ordered: true, sql: `
SELECT id, extract(year FROM dt), extract(quarter FROM dt), extract(month FROM dt), extract(week FROM dt), extract(day FROM dt),
       date_part('dow', dt), date_part('isodow', dt), date_part('doy', dt), date_part('isoyear', dt), date_part('yearweek', dt),
       date_part('decade', dt), date_part('century', dt), date_part('millennium', dt), date_part('era', dt),
       year(dt), month(dt), day(dt), dayofweek(dt), dayofyear(dt), weekofyear(dt), quarter(dt), isodow(dt)
FROM t ORDER BY id`},
	{name: "date fields of literals", sql: `
SELECT extract(week FROM DATE '2024-12-30'), extract(week FROM DATE '2021-01-03'), date_part('yearweek', DATE '2021-01-03'),
       date_part('isoyear', DATE '2021-01-03'), date_part('doy', DATE '2024-12-31'), date_part('century', DATE '2000-12-31'),
       date_part('century', DATE '2001-01-01'), date_part('millennium', DATE '2000-06-01'), date_part('decade', DATE '1999-12-31'),
       date_part('dow', DATE '1970-01-01'), date_part('dow', DATE '1969-12-28'), year(DATE '0001-01-01'), date_part('era', DATE '0001-01-01')`},
	{name: "date fields before year 1", sql: `
SELECT year(DATE '0000-03-15'), date_part('century', DATE '0000-03-15'), date_part('millennium', DATE '0000-03-15'),
       date_part('era', DATE '0000-03-15'), date_part('doy', DATE '0000-12-31'), date_part('dow', DATE '0000-03-01')`},
	{name: "year of date arithmetic", ordered: true, sql: `SELECT id, year(dt + INTERVAL '1' MONTH), extract(month FROM dt - INTERVAL '45' DAY) FROM t ORDER BY id LIMIT 300`},
	{name: "group by month", ordered: true, sql: `SELECT extract(month FROM dt) AS m, count(*), count(s) FROM t GROUP BY m ORDER BY m NULLS FIRST`},
	// substring's corners over text with non-ASCII characters
	{name: "substring corners", ordered: true, sql: `
SELECT id, s, substring(s, 0, 2), substring(s, 0, 1), substring(s, -1, 3), substring(s, -2, 2), substring(s, -4, 3),
       substring(s, -10, 3), substring(s, 3, -2), substring(s, 6, -3), substring(s, -2, -2), substring(s, 2, -5),
       substring(s, 2, 0), substring(s, 10, 2), substring(s, 0), substring(s, -3), substring(s, 4), substring(s, -9)
FROM t ORDER BY id`},
	{name: "substring by columns", ordered: true, sql: `SELECT id, substring(s, k - 2, n - 5), substring(s FROM k FOR n), substr(s, i % 4) FROM t ORDER BY id`},
	{name: "substring of literals", sql: `
SELECT substring('héllo wörld' FROM 8 FOR 3), substring('日本語テキスト', 2, 3), substring('héllo', -10, 3), substring('héllo', -7, 3),
       substring('O', 3, -1), substring('hello', 0, -1), substring('hello', 7, -3), substring('aé€😀b', -3, 2), substr('abc', 0)`},
	{name: "group by substring", ordered: true, sql: `SELECT substring(s, 1, 1) AS c, count(*) FROM t GROUP BY c ORDER BY c NULLS FIRST`},
}

func TestFuncs(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range funcQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
}
