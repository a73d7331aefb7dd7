package expr

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int32
		ok   bool
	}{
		{"1970-01-01", 0, true},
		{"1969-12-31", -1, true},
		{"2024-02-29", 19782, true},
		{"1998-12-01", 10561, true},
		{"1998-1-5", 10231, true},
		{"0000-03-01", -719468, true},
		{"-0001-12-31", -719529, true},
		{"2023-02-29", 0, false},
		{"2024-13-01", 0, false},
		{"2024-00-10", 0, false},
		{"2024-04-31", 0, false},
		{"98-12-01", 0, false},
		{"1998-12-01 ", 0, false},
		{"1998-12-01T00:00", 0, false},
		{"1998/12/01", 0, false},
		{"", 0, false},
		{"+1998-12-01", 0, false},
		{"5881580-07-11", math.MaxInt32, true},
		{"5881580-07-12", 0, false},
		{"-5877641-06-23", math.MinInt32, true},
	} {
		got, err := ParseDate(tc.s)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", tc.s, got, err, tc.want)
		}
		if !tc.ok {
			wantErr(t, err, ErrInvalidCast, "'"+tc.s+"'")
		}
	}
}

// TestCivil checks the calendar against the time package over a wide range.
func TestCivil(t *testing.T) {
	for d := int64(-3_000_000); d <= 3_000_000; d += 37 {
		tm := time.Unix(d*86400, 0).UTC()
		y, m, day := civil(d)
		if y != int64(tm.Year()) || m != int(tm.Month()) || day != tm.Day() {
			t.Fatalf("civil(%d) = %d-%d-%d, time says %s", d, y, m, day, tm.Format("2006-01-02"))
		}
		if back := daysFromCivil(y, m, day); back != d {
			t.Fatalf("daysFromCivil(civil(%d)) = %d", d, back)
		}
		if s := formatDate(int32(d)); tm.Year() >= 0 && tm.Year() <= 9999 && s != tm.Format("2006-01-02") {
			t.Fatalf("formatDate(%d) = %s", d, s)
		}
		if p, err := ParseDate(formatDate(int32(d))); err != nil || int64(p) != d {
			t.Fatalf("ParseDate(formatDate(%d)) = %d, %v", d, p, err)
		}
	}
}

func TestAddInterval(t *testing.T) {
	for _, tc := range []struct {
		date         string
		months, days int32
		want         string
	}{
		{"2024-01-31", 1, 0, "2024-02-29"},
		{"2023-01-31", 1, 0, "2023-02-28"},
		{"2024-03-31", -1, 0, "2024-02-29"},
		{"2024-02-29", 12, 0, "2025-02-28"},
		{"2024-02-29", -48, 0, "2020-02-29"},
		{"2024-05-31", 1, 0, "2024-06-30"},
		{"2024-12-15", 1, 0, "2025-01-15"},
		{"2024-01-15", -1, 0, "2023-12-15"},
		{"2024-01-31", 1, 1, "2024-03-01"}, // months first, then days
		{"1998-12-01", 0, -90, "1998-09-02"},
		{"2000-02-28", 0, 1, "2000-02-29"},
		{"1900-02-28", 0, 1, "1900-03-01"},
		{"0001-01-01", -13, 0, "-0001-12-01"},
	} {
		cols := []jcol{{"d", typDate32, `["` + tc.date + `", null]`}}
		e := must(AddInterval(jexpr(cols, "d"), tc.months, tc.days))
		got, err := evalText(t, e, cols...)
		if err != nil || got[0] != tc.want || got[1] != "NULL" {
			t.Errorf("%s + %d months %d days = %v, %v; want %s", tc.date, tc.months, tc.days, got, err, tc.want)
		}
		// a literal date is computed at plan time
		f := must(AddInterval(date(tc.date), tc.months, tc.days))
		if _, ok := f.(*literal); !ok {
			t.Errorf("%s was not folded", f)
		}
	}
	max := []jcol{{"d", typDate32, `[2147483647]`}}
	_, err := evalValues(t, must(AddInterval(jexpr(max, "d"), 0, 1)), max...)
	wantErr(t, err, ErrOverflow, "d + INTERVAL '1 day'")
	_, err = AddInterval(Column(0, "i", typInt64), 1, 0)
	wantErr(t, err, ErrType)
	e := must(AddInterval(Column(0, "d", typDate32), -3, -2))
	if e.String() != "d - INTERVAL '3 months 2 days'" {
		t.Errorf("String() = %q", e)
	}
}

// TestDateArith: DATE - DATE is days, DATE ± BIGINT a date, as in DuckDB.
func TestDateArith(t *testing.T) {
	cols := []jcol{
		{"d", typDate32, `["2024-03-01", null, "1970-01-01"]`},
		{"n", typInt64, `[1, 2, -1]`},
	}
	d, n := jexpr(cols, "d"), jexpr(cols, "n")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Arith(Sub, d, date("2024-02-01"))), "[29 NULL -19754]"},
		{must(Arith(Sub, d, n)), "[2024-02-29 NULL 1970-01-02]"},
		{must(Arith(Add, n, d)), "[2024-03-02 NULL 1969-12-31]"},
	} {
		got, err := evalText(t, tc.e, cols...)
		if err != nil || "["+strings.Join(got, " ")+"]" != tc.want {
			t.Errorf("%s = %v, %v; want %s", tc.e, got, err, tc.want)
		}
	}
	_, err := evalText(t, must(Arith(Add, d, lit(int64(1)<<40))), cols...)
	wantErr(t, err, ErrOverflow, "date out of range: 2024-03-01 + 1099511627776 days (in d + 1099511627776)")
	if s := must(Arith(Sub, d, n)).String(); s != "d - n" {
		t.Errorf("text %q", s)
	}
}
