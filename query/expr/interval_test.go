package expr

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestParseFormatInterval: interval text as DuckDB reads and prints it
// (the expected texts are DuckDB 1.4's CAST(INTERVAL '…' AS VARCHAR)).
func TestParseFormatInterval(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1 day", "1 day"},
		{"1 day 2 hours", "1 day 02:00:00"},
		{"-1 day 2 hours", "-1 day 02:00:00"},
		{"1 year 2 months 3 days 04:05:06.789", "1 year 2 months 3 days 04:05:06.789"},
		{"36 hours", "36:00:00"},
		{"1 month 40 days", "1 month 40 days"},
		{"1 day 2 hours 3 minutes 4.5 seconds", "1 day 02:03:04.5"},
		{"2 weeks", "14 days"},
		{"1 decade", "10 years"},
		{"3 mons", "3 months"},
		{"1h 30m", "01:30:00"},
		{"1 day ago", "-1 day"},
		{"-1:30", "-01:30:00"},
		{"1 year -1 month", "11 months"},
		{"100 microseconds", "00:00:00.0001"},
		{"5 ms", "00:00:00.005"},
		{"0 days", "00:00:00"},
	} {
		v, err := ParseInterval(tc.in)
		if err != nil {
			t.Errorf("ParseInterval(%q): %v", tc.in, err)
			continue
		}
		if got := formatInterval(v); got != tc.want {
			t.Errorf("ParseInterval(%q) prints %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "nope", "1", "1 fortnight", "1.5 days", "99999999999 days", "1 day 25:99"} {
		if _, err := ParseInterval(bad); !errors.Is(err, ErrInvalidCast) || !strings.Contains(err.Error(), "invalid interval") {
			t.Errorf("ParseInterval(%q) = %v, want ErrInvalidCast", bad, err)
		}
	}
}

func TestCompareIntervals(t *testing.T) {
	iv := func(s string) interval {
		v, err := ParseInterval(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1 day", "24 hours", 0},
		{"30 days", "1 month", 0},
		{"1 day", "25 hours", -1},
		{"31 days", "1 month", 1},
		{"-1 day", "0 days", -1},
		{"1 month -1 day", "29 days", 1}, // DuckDB: normalized (1, -1, 0) > (0, 29, 0)
		{"720 hours", "1 month", 0},
		{"1 year", "359 days", 1},
		// DuckDB 1.4: days carried from the hours, then months from the days
		{"29 days 719 hours", "1 month", 1},
		{"29 days 719 hours", "1 month 1 second", 1},
		{"-29 days -719 hours", "-1 month", -1},
		{"1 month 28 days 23 hours", "29 days 719 hours", 0},
	} {
		a, b := iv(tc.a), iv(tc.b)
		if got := compareIntervals(a, b); got != tc.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		// the sort key orders as the comparison does
		if got := intervalKey(a).Cmp(intervalKey(b)); got != tc.want {
			t.Errorf("key order(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestAge: DuckDB's age(a, b) (the expected texts are DuckDB's).
func TestAge(t *testing.T) {
	ts := func(s string) int64 {
		us, _, err := ParseTimestamp(s, false)
		if err != nil {
			t.Fatal(err)
		}
		return us
	}
	for _, tc := range []struct{ a, b, want string }{
		{"2024-03-31", "2024-02-29 12:00", "1 month 1 day 12:00:00"},
		{"2024-01-31", "2023-12-31 23:59:59.5", "30 days 00:00:00.5"},
		{"2024-02-28", "2024-01-31", "28 days"},
		{"2023-01-31", "2024-02-29", "-1 year -29 days"},
		{"2024-03-02 03:00", "2024-01-01", "2 months 1 day 03:00:00"},
		{"2024-01-01", "2024-03-02 03:00", "-2 months -1 day -03:00:00"},
		{"2024-03-31", "2023-02-28", "1 year 1 month 3 days"},
	} {
		if got := formatInterval(age(ts(tc.a), ts(tc.b))); got != tc.want {
			t.Errorf("age(%s, %s) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestIntervalColumns: month, day_time and duration columns convert to
// INTERVAL and back.
func TestIntervalColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		typ  arrow.DataType
		json string
		want string
	}{
		{arrow.FixedWidthTypes.MonthInterval, `[{"months": 14}, null, {"months": -1}]`, "[1 year 2 months NULL -1 month]"},
		{arrow.FixedWidthTypes.DayTimeInterval, `[{"days": 1, "milliseconds": 1500}, null]`, "[1 day 00:00:01.5 NULL]"},
		{arrow.FixedWidthTypes.Duration_s, `[90, -3600, null]`, "[00:01:30 -01:00:00 NULL]"},
		{arrow.FixedWidthTypes.Duration_ns, `[1]`, "[00:00:00.000000001]"},
		{arrow.FixedWidthTypes.MonthDayNanoInterval, `[{"months": 1, "days": 2, "nanoseconds": 3000}]`, "[1 month 2 days 00:00:00.000003]"},
	} {
		a, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		e, err := ToEngine(context.Background(), mem, a)
		if err != nil {
			t.Fatalf("ToEngine(%s): %v", tc.typ, err)
		}
		s, err := castToString(mem, e)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range s.Len() {
			if s.IsNull(i) {
				got = append(got, "NULL")
			} else {
				got = append(got, s.(*array.String).Value(i))
			}
		}
		if g := "[" + strings.Join(got, " ") + "]"; g != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.typ, tc.json, g, tc.want)
		}
		back, err := FromEngine(context.Background(), mem, e, tc.typ)
		if err != nil {
			t.Errorf("FromEngine(%s): %v", tc.typ, err)
		} else {
			if !array.Equal(back, a) {
				t.Errorf("%s: round trip %v, want %v", tc.typ, back, a)
			}
			back.Release()
		}
		s.Release()
		e.Release()
		a.Release()
	}
	// a fraction of a second does not fit seconds
	a, _, _ := array.FromJSON(mem, typInterval, strings.NewReader(`[{"months": 0, "days": 0, "nanoseconds": 5}]`))
	defer a.Release()
	if _, err := FromEngine(context.Background(), mem, a, arrow.FixedWidthTypes.Duration_s); !errors.Is(err, ErrOverflow) {
		t.Errorf("5ns as duration[s]: %v, want ErrOverflow", err)
	}
}
