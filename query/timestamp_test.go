package query

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// eventsEngine is an engine over "events": id int64, and one instant per
// row stored four ways: ts_s (seconds), ts_ms (milliseconds, zone
// Europe/Paris), ts_us (microseconds, NULL every 5th row), ts_ns
// (nanoseconds, zone UTC), and d, its date. Row i is 2024-03-30
// 22:00:00.123456 UTC plus i*7 hours and i*1001 microseconds, so the rows
// cross the DST change of 2024-03-31 in Europe/Paris and several days.
func eventsEngine(t *testing.T, n int) (*Engine, []time.Time) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"}},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	}, nil)
	base := time.Date(2024, 3, 30, 22, 0, 0, 123456000, time.UTC)
	var times []time.Time
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range n {
		tm := base.Add(time.Duration(i)*7*time.Hour + time.Duration(i)*1001*time.Microsecond)
		times = append(times, tm)
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.Unix()))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMilli()))
		appendOr(b.Field(3), i%5 == 4, func(f array.Builder) { f.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro())) })
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixNano()))
		b.Field(5).(*array.Date32Builder).Append(arrow.Date32FromTime(tm))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "events", []arrow.RecordBatch{rec})
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20}), times
}

func TestTimestampQueries(t *testing.T) {
	e, _ := eventsEngine(t, 20)
	for _, tc := range []struct{ sql, want string }{
		{`SELECT id, ts_us FROM events WHERE id IN (0, 1) ORDER BY id`,
			"0|2024-03-30T22:00:00.123456 1|2024-03-31T05:00:00.124457"},
		{`SELECT count(*) FROM events WHERE ts_us > TIMESTAMP '2024-03-31 12:00:00'`, "14"},
		{`SELECT count(*) FROM events WHERE ts_s >= '2024-04-01'`, "16"},
		{`SELECT count(*) FROM events WHERE ts_ns < DATE '2024-04-01'`, "4"},
		{`SELECT count(*) FROM events WHERE ts_us = ts_ns AND ts_s <= ts_ms AND ts_ms <= ts_us`, "16"},
		{`SELECT min(ts_ms), max(ts_ns), count(ts_us) FROM events`,
			"2024-03-30T22:00:00.123Z|2024-04-05T11:00:00.142475Z|16"},
		{`SELECT d, count(*) FROM events GROUP BY d ORDER BY d LIMIT 2`, "2024-03-30|1 2024-03-31|3"},
		{`SELECT extract(hour FROM ts_s), extract(minute FROM ts_us), date_part('epoch', ts_s), date_part('millisecond', ts_ns), date_part('microsecond', ts_ns) FROM events WHERE id = 1`,
			"5|0|1.7118612e+09|124|124457"},
		{`SELECT CAST(ts_us AS DATE), CAST(ts_s AS CHAR), CAST(ts_ns AS CHAR), CAST(d AS TIMESTAMP) FROM events WHERE id = 1`,
			"2024-03-31|2024-03-31 05:00:00|2024-03-31 05:00:00.124457+00|2024-03-31T00:00:00"},
		{`SELECT ts_s + INTERVAL '3' HOUR, ts_s - INTERVAL 30 MINUTE, ts_s + INTERVAL 1 MONTH, d + INTERVAL 90 SECOND FROM events WHERE id = 0`,
			"2024-03-31T01:00:00|2024-03-30T21:30:00|2024-04-30T22:00:00|2024-03-30T00:01:30"},
		{`SELECT CAST('2024-02-29 23:59:59.5' AS TIMESTAMP), TRY_CAST('nope' AS TIMESTAMP), TRY_CAST('12' AS SIGNED), try_cast('x' as signed)`,
			"2024-02-29T23:59:59.5|NULL|12|NULL"},
		{`SELECT CAST('2024-03-31 03:30:00+02:00' AS TIMESTAMP WITH TIME ZONE), CAST(TIMESTAMP '2024-01-02 03:04:05' AS TIMESTAMPTZ)`,
			"2024-03-31T01:30:00Z|2024-01-02T03:04:05Z"},
		{`SELECT a.id FROM events a JOIN events b ON a.ts_ns = b.ts_us WHERE a.id < 3 ORDER BY a.id`, "0 1 2"},
		{`SELECT ts_s FROM events ORDER BY ts_s DESC LIMIT 1`, "2024-04-05T11:00:00"},
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

func TestTimestampErrors(t *testing.T) {
	e, _ := eventsEngine(t, 4)
	for _, tc := range []struct {
		sql  string
		kind error
		want string
	}{
		{`SELECT TIMESTAMP '2024-13-01 00:00:00'`, ErrInvalid, "invalid timestamp '2024-13-01 00:00:00'"},
		{`SELECT CAST('soon' AS TIMESTAMP)`, ErrInvalid, "cannot cast 'soon' to TIMESTAMP"},
		{`SELECT ts_s < 5 FROM events`, ErrInvalid, "cannot compare"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

// TestNowIsFixedPerQuery: every now()/current_timestamp/current_date of
// one query reads the same instant, that of the query's start.
func TestNowIsFixedPerQuery(t *testing.T) {
	e, _ := eventsEngine(t, 3)
	before := time.Now().UTC()
	got, err := run(t, e, `SELECT now() = current_timestamp, CAST(now() AS DATE) = current_date, count(*),
		min(CAST(now() AS VARCHAR)) = max(CAST(current_timestamp AS VARCHAR)), CAST(localtimestamp AS TIMESTAMPTZ) = now()
		FROM events WHERE ts_s < now() AND id IN (SELECT id FROM events WHERE ts_s < current_timestamp)`)
	if err != nil || strings.Join(got, " ") != "true|true|3|true|true" {
		t.Fatalf("now: %v, %v", got, err)
	}
	got, err = run(t, e, `SELECT CAST(now() AS VARCHAR)`)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("2006-01-02 15:04:05.999999-07", got[0])
	if err != nil || at.Before(before.Truncate(time.Microsecond)) || at.After(time.Now()) {
		t.Errorf("now() = %s (%v), want an instant after %s", got[0], err, before)
	}
	if _, err := run(t, e, `SELECT now(1)`); err == nil || !strings.Contains(err.Error(), "now takes no arguments, got 1") {
		t.Errorf("now(1): %v", err)
	}
}

// TestDistinctFromRewrite: IS [NOT] DISTINCT FROM is read outside string
// literals only, and positions in errors stay the user's.
func TestDistinctFromRewrite(t *testing.T) {
	e, _ := eventsEngine(t, 5)
	got, err := run(t, e, `SELECT 'a IS DISTINCT FROM b', ts_us IS DISTINCT FROM NULL, ts_us IS NOT DISTINCT FROM NULL, id <=> 2
		FROM events ORDER BY id`)
	if err != nil || strings.Join(got, " ") != "a IS DISTINCT FROM b|true|false|false a IS DISTINCT FROM b|true|false|false a IS DISTINCT FROM b|true|false|true a IS DISTINCT FROM b|true|false|false a IS DISTINCT FROM b|false|true|false" {
		t.Errorf("distinct: %v, %v", got, err)
	}
	_, err = run(t, e, "SELECT id FROM events WHERE\n  ts_s IS DISTINCT FROM 'x'")
	if err == nil || !strings.Contains(err.Error(), "line 2, column 3") {
		t.Errorf("error position: %v", err)
	}
}

// TestTimestampParams: a time.Time parameter is a TIMESTAMP WITH TIME
// ZONE and compares with timestamp columns of every unit.
func TestTimestampParams(t *testing.T) {
	e, times := eventsEngine(t, 10)
	got, _, err := runOrdered(t, e, `SELECT count(*) FROM events WHERE ts_us >= ? AND ts_ns < ? AND ts_ms > ?`,
		times[2], times[8].In(time.FixedZone("x", 3600)), time.Time{})
	if err != nil || strings.Join(got, " ") != "5" {
		t.Errorf("time.Time parameters: %v, %v", got, err)
	}
}

// TestCastSpellingsOnlyInCasts: AS TIMESTAMP, AS TEXT and the like are
// read as types only inside a CAST, so a column alias of that name in a
// subquery stays an alias.
func TestCastSpellingsOnlyInCasts(t *testing.T) {
	e, _ := eventsEngine(t, 3)
	got, err := run(t, e, `SELECT (SELECT 7 AS text), CAST((SELECT 8 AS timestamp) AS VARCHAR), CAST(ts_s AS TEXT) FROM events WHERE id = 1`)
	if err != nil || strings.Join(got, " ") != "7|8|2024-03-31 05:00:00" {
		t.Errorf("aliases: %v, %v", got, err)
	}
}

// TestPostgresSpellings: INTERVAL '3 hours' and EXTRACT(EPOCH FROM t)
// read as DuckDB and PostgreSQL read them, outside string literals only,
// with errors at the user's positions.
func TestPostgresSpellings(t *testing.T) {
	e, _ := eventsEngine(t, 2)
	got, err := run(t, e, `SELECT ts_s + INTERVAL '3 hours', d - INTERVAL '1 day', EXTRACT(EPOCH FROM ts_s), extract(dow from d), 'INTERVAL ''1 day''' FROM events WHERE id = 0`)
	if err != nil || strings.Join(got, " ") != "2024-03-31T01:00:00|2024-03-29|1.711836e+09|6|INTERVAL '1 day'" {
		t.Errorf("spellings: %v, %v", got, err)
	}
	_, err = run(t, e, "SELECT id FROM events WHERE\n  EXTRACT(EPOCH FROM id) > 0")
	if err == nil || !strings.Contains(err.Error(), "line 2, column 3") || !strings.Contains(err.Error(), "no function date_part(varchar, bigint)") {
		t.Errorf("error: %v", err)
	}
}

// TestSyntaxErrorsQuoteTheUsersText: a syntax error after a rewritten
// spelling quotes what the user wrote, not what the parser read.
func TestSyntaxErrorsQuoteTheUsersText(t *testing.T) {
	e, _ := eventsEngine(t, 1)
	_, err := run(t, e, `SELECT CAST(id AS TEXT) FROM events WHERE WHERE`)
	if err == nil || !strings.Contains(err.Error(), `near "WHERE"`) {
		t.Errorf("error: %v", err)
	}
	_, err = run(t, e, `SELECT 1 1, TRY_CAST(id AS TEXT) FROM events`)
	if err == nil || !strings.Contains(err.Error(), "TRY_CAST(id AS TEXT)") {
		t.Errorf("error quotes the rewritten text: %v", err)
	}
}
