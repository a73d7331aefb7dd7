//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/query"
)

// zoneQueries check the session time zone against DuckDB's SET TimeZone,
// over fx's instants, which cross the DST changes of 2024 in Europe (31
// March: a 23-hour day; 27 October: 25 hours) and the US (10 March, 3
// November).
var zoneQueries = []testQuery{
	{name: "casts", ordered: true, sql: `
SELECT id, CAST(ts AS TIMESTAMPTZ), CAST(tz AS TIMESTAMP), CAST(tz AS DATE), CAST(tz AS VARCHAR), CAST(d AS TIMESTAMPTZ),
       CAST(CAST(tz AS VARCHAR) AS TIMESTAMPTZ) = tz, CAST(CAST(ts AS VARCHAR) AS TIMESTAMPTZ)
FROM fx ORDER BY id`},
	{name: "fields", ordered: true, sql: `
SELECT id, extract(year FROM tz), extract(month FROM tz), extract(day FROM tz), extract(hour FROM tz), extract(minute FROM tz),
       date_part('dow', tz), date_part('doy', tz), date_part('epoch', tz), hour(tz), dayname(tz), monthname(tz), last_day(tz)
FROM fx ORDER BY id`},
	{name: "date_trunc", ordered: true, sql: `
SELECT id, date_trunc('day', tz), date_trunc('hour', tz), date_trunc('month', tz), date_trunc('week', tz), date_trunc('year', tz)
FROM fx ORDER BY id`},
	{name: "calendar intervals", ordered: true, sql: `
SELECT id, tz + INTERVAL 1 DAY, tz - INTERVAL 1 DAY, tz + INTERVAL 1 MONTH, tz + INTERVAL '1' WEEK FROM fx ORDER BY id`},
	// apart: DuckDB 1.4 takes tz + INTERVAL 24 HOUR beside tz + INTERVAL
	// 1 DAY for the same expression (the intervals compare equal) and
	// answers both with the calendar day
	{name: "hours", ordered: true, sql: `SELECT id, tz + INTERVAL 24 HOUR, tz - INTERVAL 90 MINUTE FROM fx ORDER BY id`},
	{name: "comparisons", sql: `
SELECT count(*), count(CASE WHEN ts < tz THEN 1 END), count(CASE WHEN d <= tz THEN 1 END), count(CASE WHEN ts = tz THEN 1 END),
       count(CASE WHEN tz - ts > INTERVAL 1 HOUR THEN 1 END)
FROM fx`},
	// an INTERVAL value (not a constant) moves the calendar in the zone too
	{name: "interval values", ordered: true, sql: `
SELECT id, tz + to_days(id % 3), to_days(1) + to_hours(1) + tz, tz - (to_months(1) + to_days(1)), tz + (to_months(1) + to_days(1) + to_hours(2)),
       tz - to_hours(25) + to_days(1), tz - (to_days(1) + to_minutes(90)), tz + INTERVAL '1 month 2 days 3 hours', tz - INTERVAL '1 month 1 day'
FROM fx ORDER BY id`},
	{name: "timestamptz literals", sql: `
SELECT TIMESTAMPTZ '2024-03-31 02:30:00', TIMESTAMPTZ '2024-10-27 02:30:00', TIMESTAMPTZ '2024-10-27 02:30:00+01',
       TIMESTAMP WITH TIME ZONE '2024-07-01 12:00', TIMESTAMPTZ '2024-03-30 12:00' + INTERVAL 1 DAY, TIMESTAMPTZ '2024-11-03 01:30' + to_days(1),
       CAST(TIMESTAMPTZ '2024-03-10 02:30' AS VARCHAR)`},
	{name: "strptime with %z", sql: `
SELECT strptime('2024-03-31 02:30:00 +01:00', '%Y-%m-%d %H:%M:%S %z'), CAST(strptime('2024-10-27 01:30:00 -04:00', '%Y-%m-%d %H:%M:%S %z') AS VARCHAR),
       date_trunc('day', strptime('2024-03-30 23:30:00 +00:00', '%Y-%m-%d %H:%M:%S %z')), to_timestamp(1711848600), hour(to_timestamp(1711848600.5)),
       strptime('2024-03-31 02:30:00', '%Y-%m-%d %H:%M:%S')`},
	{name: "date_diff", ordered: true, sql: `SELECT id, date_diff('day', tz, tz + INTERVAL 36 HOUR), date_diff('month', d, tz) FROM fx ORDER BY id`},
	{name: "group by day", ordered: true, sql: `SELECT date_trunc('day', tz) AS k, count(*) FROM fx GROUP BY k ORDER BY k NULLS FIRST LIMIT 80`},
	{name: "dst literals", sql: `
SELECT CAST(TIMESTAMP '2024-03-31 02:30:00' AS TIMESTAMPTZ), CAST(TIMESTAMP '2024-10-27 02:30:00' AS TIMESTAMPTZ),
       CAST(TIMESTAMP '2024-03-10 02:30:00' AS TIMESTAMPTZ), CAST(TIMESTAMP '2024-11-03 01:30:00' AS TIMESTAMPTZ),
       CAST('2024-03-31 02:30:00' AS TIMESTAMPTZ), CAST(CAST('2024-10-27 01:30:00+00' AS TIMESTAMPTZ) AS VARCHAR)`},
}

// TestTimeZones runs zoneQueries with the session zone set in both
// engines, in each zone.
func TestTimeZones(t *testing.T) {
	fxTable(t)
	for _, zone := range []string{"Europe/Berlin", "America/New_York", "Asia/Kolkata"} {
		t.Run(zone, func(t *testing.T) {
			ctx := context.Background()
			conn, err := env.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET TimeZone = '%s'", zone)); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "SET TimeZone = 'UTC'")
			qctx := query.WithSession(ctx, &query.Session{})
			if _, err := env.q.Exec(qctx, fmt.Sprintf("SET TimeZone = '%s'", zone)); err != nil {
				t.Fatal(err)
			}
			for _, q := range zoneQueries {
				t.Run(q.name, func(t *testing.T) {
					var o outcome
					if r, err := env.q.Query(qctx, q.sql); err != nil {
						o.quiverErr = err
					} else {
						o.quiver, o.quiverErr = readArrow(r)
						r.Release()
					}
					if rs, err := conn.QueryContext(ctx, q.sql); err != nil {
						o.duckErr = err
					} else {
						o.duck, o.duckErr = readSQL(rs)
					}
					switch {
					case o.quiverErr != nil || o.duckErr != nil:
						t.Errorf("%s\nquiver: %v\nDuckDB: %v", q.sql, o.quiverErr, o.duckErr)
					default:
						if d := diff(o.quiver, o.duck, q.ordered); d != "" {
							t.Errorf("%s\n%s", q.sql, d)
						}
					}
				})
			}
		})
	}
}
