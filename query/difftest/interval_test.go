//go:build duckdb

package difftest

import "testing"

// intervalQueries check INTERVAL against DuckDB's: literals, timestamp
// differences, arithmetic, comparisons (normalized: '1 day' = '24
// hours'), ORDER BY, GROUP BY, EXTRACT, age and to_*, over fx.
var intervalQueries = []testQuery{
	{name: "literals", sql: `
SELECT INTERVAL '1' DAY, INTERVAL 3 HOUR, INTERVAL '90' MINUTE, INTERVAL '1 day 2 hours', INTERVAL '1 year 2 months 3 days 04:05:06.789',
       INTERVAL '-1 day 2 hours', INTERVAL '36 hours', INTERVAL '2 weeks', CAST('1 day 02:00:00' AS INTERVAL)`},
	{name: "text", sql: `
SELECT CAST(INTERVAL '1 day 2 hours' * 3 AS VARCHAR), CAST(INTERVAL 1 DAY - INTERVAL 3 HOUR AS VARCHAR), CAST(INTERVAL '36 hours' AS VARCHAR),
       CAST(INTERVAL '1 year -1 month' AS VARCHAR), CAST(-INTERVAL '1 month 2 days 00:00:00.5' AS VARCHAR), CAST(INTERVAL '0 days' AS VARCHAR)`},
	{name: "timestamp difference", ordered: true, sql: `SELECT id, ts - tms, tz - ts, ts - d, CAST(ts - TIMESTAMP '2000-01-01 00:00:00' AS VARCHAR) FROM fx ORDER BY id`},
	{name: "timestamp plus interval", ordered: true, sql: `
SELECT id, ts + (ts - tms), tms - (ts - d), ts + INTERVAL '1 month 2 days 03:00:00', d + INTERVAL '1 day 2 hours', d - INTERVAL '25 hours',
       INTERVAL '1 month' + ts, tz + INTERVAL '1 day 1 second'
FROM fx ORDER BY id`},
	{name: "interval arithmetic", ordered: true, sql: `
SELECT id, (ts - d) + INTERVAL '1 month', (ts - d) - (tms - d), (ts - d) * n, n * (ts - d), -(ts - d) FROM fx WHERE abs(n) < 100 ORDER BY id`},
	{name: "comparisons", sql: `
SELECT INTERVAL '1' DAY = INTERVAL '24' HOUR, INTERVAL '30' DAY = INTERVAL 1 MONTH, INTERVAL '1' DAY < INTERVAL '25' HOUR,
       INTERVAL '31' DAY > INTERVAL 1 MONTH, INTERVAL '1 month -1 day' > INTERVAL '29 days', INTERVAL '-1 day' < INTERVAL '0 days',
       INTERVAL '29 days 719 hours' > INTERVAL '1 month 1 second', INTERVAL '-29 days -719 hours' < INTERVAL '-1 month',
       INTERVAL '1 month 28 days 23 hours' = INTERVAL '29 days 719 hours', INTERVAL '720 hours' = INTERVAL '1 month'`},
	{name: "filter", sql: `SELECT count(*), count(ts - d) FROM fx WHERE ts - d > INTERVAL '12 hours' OR tz - ts <= INTERVAL '-1 second'`},
	{name: "order by", ordered: true, sql: `SELECT id, ts - d AS x FROM fx WHERE ts IS NOT NULL ORDER BY x DESC, id LIMIT 60`},
	{name: "group by", ordered: true, sql: `SELECT date_trunc('hour', ts) - d AS x, count(*) FROM fx GROUP BY x ORDER BY x NULLS FIRST`},
	{name: "min max", ordered: true, sql: `SELECT n, min(ts - d), max(tz - ts), min(ts - TIMESTAMP '2000-01-01 00:00:00') FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "extract", ordered: true, sql: `
SELECT id, extract(year FROM ts - TIMESTAMP '1900-01-01 00:00:00'), extract(day FROM ts - tms), extract(hour FROM ts - d), extract(minute FROM ts - d),
       extract(second FROM ts - d), date_part('millisecond', ts - d), extract(microsecond FROM ts - d), date_part('epoch', ts - d),
       extract(month FROM age(ts, d)), extract(year FROM INTERVAL '14 months'), date_part('epoch', INTERVAL '14 months'), extract(quarter FROM INTERVAL '-7 months')
FROM fx ORDER BY id`},
	{name: "age", ordered: true, sql: `SELECT id, age(ts, TIMESTAMP '2000-02-29 00:00:00'), age(tms, tz), age(d, DATE '1999-12-31') FROM fx ORDER BY id`},
	{name: "to_", sql: `SELECT to_days(3), to_hours(5), to_minutes(-2), to_seconds(1.5), to_milliseconds(2.5), to_microseconds(7), to_months(14), to_years(2), to_weeks(3)`},
}

func TestIntervals(t *testing.T) { runQueries(t, intervalQueries) }
