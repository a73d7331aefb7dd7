package query

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionTimeZone: SET TimeZone changes where instants meet wall-clock
// times, for that session only, with DuckDB's answers (checked against
// DuckDB 1.4 with SET TimeZone) across the DST changes of 2024 in
// Europe/Berlin (a 23-hour 31 March, a 25-hour 27 October) and
// America/New_York.
func TestSessionTimeZone(t *testing.T) {
	e, _ := eventsEngine(t, 3)
	berlin, ny := &Session{}, &Session{}
	ctxB, ctxNY := WithSession(context.Background(), berlin), WithSession(context.Background(), ny)
	for _, tc := range []struct {
		ctx context.Context
		sql string
	}{{ctxB, `SET TimeZone = 'Europe/Berlin'`}, {ctxNY, `SET TIME ZONE 'America/New_York'`}} {
		if _, err := e.Exec(tc.ctx, tc.sql); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
	}
	for _, tc := range []struct {
		ctx       context.Context
		sql, want string
	}{
		{ctxB, `SELECT CAST(CAST(TIMESTAMP '2024-03-31 02:30' AS TIMESTAMPTZ) AS VARCHAR), CAST(CAST(TIMESTAMP '2024-10-27 02:30' AS TIMESTAMPTZ) AS VARCHAR),
			CAST(CAST(TIMESTAMP '2024-03-31 01:59:59' AS TIMESTAMPTZ) AS VARCHAR), CAST(CAST(TIMESTAMP '2024-03-31 03:00' AS TIMESTAMPTZ) AS VARCHAR)`,
			"2024-03-31 03:30:00+02|2024-10-27 02:30:00+01|2024-03-31 01:59:59+01|2024-03-31 03:00:00+02"},
		{ctxB, `SELECT CAST(CAST('2024-03-31 01:30:00+00' AS TIMESTAMPTZ) AS TIMESTAMP), CAST(CAST('2024-03-30 23:30:00+00' AS TIMESTAMPTZ) AS DATE)`,
			"2024-03-31T03:30:00|2024-03-31"},
		{ctxB, `SELECT CAST(date_trunc('day', CAST('2024-03-31 12:00:00+00' AS TIMESTAMPTZ)) AS VARCHAR), CAST(date_trunc('hour', CAST('2024-10-27 01:30:00+00' AS TIMESTAMPTZ)) AS VARCHAR),
			extract(hour FROM CAST('2024-03-31 01:30:00+00' AS TIMESTAMPTZ)), extract(day FROM CAST('2024-03-30 23:30:00+00' AS TIMESTAMPTZ)), date_part('epoch', CAST('2024-03-31 01:30:00+00' AS TIMESTAMPTZ))`,
			"2024-03-31 00:00:00+01|2024-10-27 02:00:00+01|3|31|1.7118486e+09"},
		{ctxB, `SELECT CAST(CAST('2024-03-30 12:00:00+01' AS TIMESTAMPTZ) + INTERVAL 1 DAY AS VARCHAR), CAST(CAST('2024-03-30 12:00:00+01' AS TIMESTAMPTZ) + INTERVAL 24 HOUR AS VARCHAR)`,
			"2024-03-31 12:00:00+02|2024-03-31 13:00:00+02"},
		{ctxB, `SELECT CAST(CAST('2024-07-01 12:00' AS TIMESTAMPTZ) AS VARCHAR), TIMESTAMP '2024-07-01 12:00' = CAST('2024-07-01 10:00:00+00' AS TIMESTAMPTZ), DATE '2024-07-01' < CAST('2024-06-30 22:30:00+00' AS TIMESTAMPTZ)`,
			"2024-07-01 12:00:00+02|true|true"},
		{ctxB, `SELECT date_diff('day', CAST('2024-03-30 23:30:00+00' AS TIMESTAMPTZ), CAST('2024-03-31 00:30:00+00' AS TIMESTAMPTZ)), dayname(CAST('2024-03-30 23:30:00+00' AS TIMESTAMPTZ))`,
			"0|Sunday"},
		{ctxNY, `SELECT CAST(CAST(TIMESTAMP '2024-03-10 02:30' AS TIMESTAMPTZ) AS VARCHAR), CAST(CAST(TIMESTAMP '2024-11-03 01:30' AS TIMESTAMPTZ) AS VARCHAR),
			CAST(date_trunc('day', CAST('2024-11-03 12:00:00+00' AS TIMESTAMPTZ)) AS VARCHAR), CAST(CAST('2024-11-03 05:30:00+00' AS TIMESTAMPTZ) AS TIMESTAMP)`,
			"2024-03-10 03:30:00-04|2024-11-03 01:30:00-05|2024-11-03 00:00:00-04|2024-11-03T01:30:00"},
		{ctxNY, `SELECT CAST(CAST('2024-11-02 12:00:00-04' AS TIMESTAMPTZ) + INTERVAL 1 DAY AS VARCHAR)`, "2024-11-03 12:00:00-05"},
		// TIMESTAMPTZ literals read the text as a cast does
		{ctxB, `SELECT CAST(TIMESTAMPTZ '2024-03-31 02:30' AS VARCHAR), CAST(TIMESTAMP WITH TIME ZONE '2024-07-01 12:00:00+00' AS VARCHAR), TIMESTAMPTZ'2024-01-01' = CAST('2024-01-01' AS TIMESTAMPTZ)`,
			"2024-03-31 03:30:00+02|2024-07-01 14:00:00+02|true"},
		// INTERVAL values (not constants) move the calendar in the zone
		// too: months, days, then time (March 31 - 1 month 1 day is
		// February 28: February 29, then a day back)
		{ctxB, `SELECT CAST(TIMESTAMPTZ '2024-03-30 12:00' + to_days(1) AS VARCHAR), CAST(to_days(1) + to_hours(1) + TIMESTAMPTZ '2024-03-30 12:00' AS VARCHAR),
			CAST(TIMESTAMPTZ '2024-03-31 12:00' - (to_months(1) + to_days(1)) AS VARCHAR), CAST(TIMESTAMPTZ '2024-01-30 12:00' + (to_months(1) + to_days(1)) AS VARCHAR),
			CAST(TIMESTAMPTZ '2024-03-31 12:00' - INTERVAL '1 month 1 day' AS VARCHAR)`,
			"2024-03-31 12:00:00+02|2024-03-31 13:00:00+02|2024-02-28 12:00:00+01|2024-03-01 12:00:00+01|2024-02-28 12:00:00+01"},
		// a session without a zone is UTC's
		{context.Background(), `SELECT CAST(CAST(TIMESTAMP '2024-03-31 02:30' AS TIMESTAMPTZ) AS VARCHAR)`, "2024-03-31 02:30:00+00"},
	} {
		got, err := runCtx(t, tc.ctx, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
	// results of the zoned type are labelled with the session's zone
	r, err := e.Query(ctxB, `SELECT ts_ms, now() FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if got := r.Schema().Field(i).Type.String(); got != "timestamp[ms, tz=Europe/Berlin]" && got != "timestamp[us, tz=Europe/Berlin]" {
			t.Errorf("column %d: %s, want the session's zone", i, got)
		}
	}
	for r.Next() {
	}
	r.Release()
}

func TestSessionTimeZoneErrors(t *testing.T) {
	e, _ := eventsEngine(t, 1)
	ctx := WithSession(context.Background(), &Session{})
	for _, tc := range []struct {
		ctx       context.Context
		sql, want string
		kind      error
	}{
		{ctx, `SET TimeZone = 'Mars/Olympus'`, `unknown time zone "Mars/Olympus"`, ErrInvalid},
		{ctx, `SET search_path = 'x'`, "quiver's session settings are TimeZone", ErrUnsupported},
		{context.Background(), `SET TimeZone = 'UTC'`, "no session", ErrUnsupported},
	} {
		_, err := e.Exec(tc.ctx, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
	if _, err := LoadTimeZone("Europe/Berlin"); err != nil {
		t.Errorf("LoadTimeZone: %v", err)
	}
	if loc, err := LoadTimeZone("utc"); err != nil || loc != time.UTC {
		t.Errorf("LoadTimeZone(utc) = %v, %v", loc, err)
	}
}
