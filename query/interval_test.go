package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// TestIntervalQueries: INTERVAL literals, arithmetic, comparison, ORDER
// BY, GROUP BY, EXTRACT, age and to_* (values as DuckDB gives them; the
// DuckDB difftest compares more).
func TestIntervalQueries(t *testing.T) {
	e, _ := eventsEngine(t, 20)
	for _, tc := range []struct{ sql, want string }{
		{`SELECT CAST(INTERVAL '1' DAY AS VARCHAR), CAST(INTERVAL 3 HOUR AS VARCHAR), CAST(INTERVAL '90' MINUTE AS VARCHAR), CAST(INTERVAL '1 day 2 hours' AS VARCHAR)`,
			"1 day|03:00:00|01:30:00|1 day 02:00:00"},
		{`SELECT CAST(INTERVAL '1 day 2 hours' * 3 AS VARCHAR), CAST(INTERVAL 1 DAY + INTERVAL 2 HOUR AS VARCHAR), CAST(INTERVAL 1 DAY - INTERVAL 3 HOUR AS VARCHAR), CAST(2 * -INTERVAL 3 HOUR AS VARCHAR)`,
			"3 days 06:00:00|1 day 02:00:00|1 day -03:00:00|-06:00:00"},
		{`SELECT CAST(TIMESTAMP '2024-01-01' - TIMESTAMP '2024-03-02 03:00:00.5' AS VARCHAR), CAST(TIMESTAMP '2024-01-01' - DATE '2023-12-01' AS VARCHAR)`,
			"-61 days -03:00:00.5|31 days"},
		{`SELECT CAST(ts_us - ts_s AS VARCHAR), ts_s + (ts_s - ts_us), d + INTERVAL '1 day 2 hours', d - INTERVAL 3 HOUR FROM events WHERE id = 1`,
			"00:00:00.124457|2024-03-31T04:59:59.875543|2024-04-01T02:00:00|2024-03-30T21:00:00"},
		{`SELECT INTERVAL '1' DAY = INTERVAL '24' HOUR, INTERVAL '30' DAY = INTERVAL 1 MONTH, INTERVAL '1' DAY < INTERVAL '25' HOUR, INTERVAL '31' DAY > INTERVAL 1 MONTH`,
			"true|true|true|true"},
		{`SELECT extract(hour FROM INTERVAL '1 day 26 hours'), extract(day FROM INTERVAL '1 day 26 hours'), extract(month FROM INTERVAL '14 months'), extract(year FROM INTERVAL '14 months'), extract(epoch FROM INTERVAL '14 months'), date_part('minute', INTERVAL '-27 hours -5 minutes')`,
			"26|1|2|1|3.67416e+07|-5"},
		{`SELECT CAST(age(TIMESTAMP '2024-03-31', TIMESTAMP '2024-02-29 12:00') AS VARCHAR), CAST(age(DATE '2024-03-31', DATE '2023-02-28') AS VARCHAR), age(ts_s) > INTERVAL 1 DAY FROM events WHERE id = 0`,
			"1 month 1 day 12:00:00|1 year 1 month 3 days|true"},
		{`SELECT CAST(to_days(3) AS VARCHAR), CAST(to_hours(5) AS VARCHAR), CAST(to_seconds(1.5) AS VARCHAR), CAST(to_months(14) AS VARCHAR)`,
			"3 days|05:00:00|00:00:01.5|1 year 2 months"},
		{`SELECT id FROM events WHERE ts_s - TIMESTAMP '2024-03-31' < INTERVAL '10 hours' ORDER BY ts_s - TIMESTAMP '2024-03-31' DESC`,
			"1 0"},
		{`SELECT CAST(date_trunc('day', ts_s) - TIMESTAMP '2024-03-31' AS VARCHAR) AS x, count(*) FROM events GROUP BY x ORDER BY x`,
			"-1 day|1 00:00:00|3 1 day|4 2 days|3 3 days|3 4 days|4 5 days|2"},
		// '1 day' and '24 hours' are one group, as in DuckDB
		{`SELECT count(*) FROM (SELECT CASE WHEN id % 2 = 0 THEN INTERVAL 1 DAY ELSE INTERVAL 24 HOUR END AS x FROM events) AS s GROUP BY x`, "20"},
		{`SELECT CAST(CAST('1 day 02:00:00' AS INTERVAL) AS VARCHAR), TRY_CAST('soon' AS INTERVAL)`, "1 day 02:00:00|NULL"},
		// min and max order intervals normalized and return them as they are
		{`SELECT CAST(min(x) AS VARCHAR), CAST(max(x) AS VARCHAR) FROM (SELECT CASE WHEN id = 0 THEN INTERVAL 26 HOUR WHEN id = 1 THEN INTERVAL '1 month -1 day' ELSE ts_s - ts_s END AS x FROM events) AS s`,
			"00:00:00|1 month -1 day"},
		{`SELECT id % 2 AS k, CAST(max(ts_s - TIMESTAMP '2024-03-30') AS VARCHAR) FROM events GROUP BY k HAVING min(ts_s - TIMESTAMP '2024-03-30') < INTERVAL 1 DAY ORDER BY k`,
			"0|6 days 04:00:00"},
		// the grammar's own forms stay as they were: a date stays a date
		{`SELECT d - INTERVAL '90' DAY, d + INTERVAL 1 MONTH FROM events WHERE id = 0`, "2023-12-31|2024-04-30"},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
}

func TestIntervalErrors(t *testing.T) {
	e, _ := eventsEngine(t, 4)
	for _, tc := range []struct {
		sql  string
		kind error
		want string
	}{
		{`SELECT INTERVAL '1 fortnight'`, ErrInvalid, "unknown unit 'fortnight'"},
		{`SELECT CAST('soon' AS INTERVAL)`, ErrInvalid, "cannot cast 'soon' to INTERVAL"},
		{`SELECT INTERVAL 1 DAY * 1.5`, ErrInvalid, "cannot apply * to INTERVAL and DECIMAL(2,1)"},
		{`SELECT INTERVAL 1 DAY < 5`, ErrInvalid, "cannot compare"},
		{`SELECT sum(ts_s - ts_us) FROM events`, ErrInvalid, "sum over month_day_nano_interval"},
		{`SELECT to_days(9223372036854775807)`, ErrExec, "out of range"},
		{`SELECT EXTRACT(dow FROM INTERVAL 1 DAY)`, ErrInvalid, "an INTERVAL has no dow"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

// TestSyntaxErrorAtEnd: a statement cut short after a keyword is a
// syntax error, not a panic (the parser's "near" text is then empty).
func TestSyntaxErrorAtEnd(t *testing.T) {
	e, _ := eventsEngine(t, 1)
	for _, sql := range []string{`SELECT id FROM events WHERE`, `SELECT INTERVAL`} {
		if _, err := run(t, e, sql); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %v, want ErrSyntax", sql, err)
		}
	}
}

// TestRewrittenNamesRead: columns and errors show INTERVAL and BLOB as
// written, not the grammar's stand-ins (qv$iv(…), AS YEAR, AS JSON).
func TestRewrittenNamesRead(t *testing.T) {
	e, _ := eventsEngine(t, 1)
	r, err := e.Query(t.Context(), `SELECT INTERVAL '1' DAY, INTERVAL 3 HOUR, INTERVAL '1 day 2 hours', CAST('x' AS BLOB), CAST('1 day' AS INTERVAL)`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range r.Schema().Fields() {
		names = append(names, f.Name)
	}
	for r.Next() {
	}
	r.Release()
	if got := strings.Join(names, "|"); got != "INTERVAL '1' DAY|INTERVAL 3 HOUR|INTERVAL '1 day 2 hours'|cast('x' as blob)|cast('1 day' as interval)" {
		t.Errorf("names: %s", got)
	}
	_, err = run(t, e, `SELECT INTERVAL 1 DAY * 1.5`)
	if err == nil || !strings.Contains(err.Error(), "INTERVAL 1 DAY*1.5: cannot apply") {
		t.Errorf("error: %v", err)
	}
}

// TestStoredIntervalOrder: month, day_time and duration columns sort as
// the INTERVALs they read as (normalized: 25 hours after 1 day), passed
// through in their own types.
func TestStoredIntervalOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dt", Type: arrow.FixedWidthTypes.DayTimeInterval},
		{Name: "m", Type: arrow.FixedWidthTypes.MonthInterval},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	for i, v := range []arrow.DayTimeInterval{{Days: 0, Milliseconds: 25 * 3600 * 1000}, {Days: 1}, {Days: 2, Milliseconds: -3600 * 1000}} {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.DayTimeIntervalBuilder).Append(v)
		b.Field(2).(*array.MonthIntervalBuilder).Append(arrow.MonthInterval(2 - i))
	}
	rec := b.NewRecordBatch()
	b.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "iv", []arrow.RecordBatch{rec})
	rec.Release()
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct{ sql, want string }{
		{`SELECT id FROM iv ORDER BY dt`, "1 0 2"},
		{`SELECT id, dt FROM iv ORDER BY 2 DESC`, `2|{"days":2,"milliseconds":-3600000} 0|{"days":0,"milliseconds":90000000} 1|{"days":1,"milliseconds":0}`},
		{`SELECT id FROM iv ORDER BY m`, "2 1 0"},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.sql, got, err, tc.want)
		}
	}
	c.Drop("iv")
}
