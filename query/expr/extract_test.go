package expr

import (
	"fmt"
	"strings"
	"testing"
)

// TestExtract checks each part on days whose answers DuckDB gave
// (query/difftest checks the same against DuckDB itself).
func TestExtract(t *testing.T) {
	var days []string
	for _, s := range []string{"2024-01-07", "2024-12-30", "2021-01-03", "2024-12-31", "1995-05-01", "0000-03-15", "-0044-03-15"} {
		days = append(days, fmt.Sprint(mustDate(s)))
	}
	cols := []jcol{{"d", typDate32, "[" + strings.Join(days, ", ") + ", null]"}}
	d := jexpr(cols, "d")
	for _, tc := range []struct {
		part DatePart
		want string
	}{
		{PartYear, "[2024 2024 2021 2024 1995 0 -44 NULL]"},
		{PartQuarter, "[1 4 1 4 2 1 1 NULL]"},
		{PartMonth, "[1 12 1 12 5 3 3 NULL]"},
		{PartDay, "[7 30 3 31 1 15 15 NULL]"},
		{PartDayOfWeek, "[0 1 0 2 1 3 4 NULL]"}, // Sunday 0
		{PartISODayOfWeek, "[7 1 7 2 1 3 4 NULL]"},
		{PartDayOfYear, "[7 365 3 366 121 75 75 NULL]"},
		{PartWeek, "[1 1 53 1 18 11 11 NULL]"}, // ISO: 2024-12-30 is in 2025's week 1
		{PartISOYear, "[2024 2025 2020 2025 1995 0 -44 NULL]"},
		{PartYearWeek, "[202401 202501 202053 202501 199518 11 -4411 NULL]"},
		{PartDecade, "[202 202 202 202 199 0 -4 NULL]"},
		{PartCentury, "[21 21 21 21 20 -1 -1 NULL]"},
		{PartMillennium, "[3 3 3 3 2 -1 -1 NULL]"},
		{PartEra, "[1 1 1 1 1 0 0 NULL]"},
	} {
		e := must(Extract(tc.part, d))
		got, err := evalText(t, e, cols...)
		if s := "[" + strings.Join(got, " ") + "]"; err != nil || s != tc.want {
			t.Errorf("%s = %s, %v; want %s", e, s, err, tc.want)
		}
	}
}

// TestYearOf checks the table's answers, and the edges where it hands
// over to civil, against civil.
func TestYearOf(t *testing.T) {
	for d := yearStarts[0] - 800; d <= yearStarts[yearsN]+800; d++ {
		if y, _, _ := civil(d); yearOf(d) != y {
			t.Fatalf("yearOf(%s) = %d", formatDate(int32(d)), yearOf(d))
		}
	}
}

// TestExtractYears runs years() across year boundaries in both
// directions, and at the ends of Date32.
func TestExtractYears(t *testing.T) {
	days := []int32{mustDate("1995-12-31"), mustDate("1996-01-01"), mustDate("1995-12-31"), mustDate("1995-01-01"),
		mustDate("1994-12-31"), mustDate("1996-12-31"), mustDate("1997-01-01"), -1, 0, 2147483647, -2147483648}
	out := make([]int64, len(days))
	years(days, out)
	for i, d := range days {
		if want := refExtract(PartYear, d); out[i] != want {
			t.Errorf("year of %s = %d, want %d", formatDate(d), out[i], want)
		}
	}
}

func TestExtractNullsAndErrors(t *testing.T) {
	if v, err := evalOne(t, must(Extract(PartYear, lit(nil)))); err != nil || v != nil {
		t.Errorf("EXTRACT(YEAR FROM NULL) = %v, %v", v, err)
	}
	// a literal date is computed at plan time
	e := must(Extract(PartMonth, date("1998-12-01")))
	if x := Inspect(e); x.Kind != KindLiteral || x.Value != int64(12) {
		t.Errorf("EXTRACT(MONTH FROM DATE '1998-12-01') is %s", e)
	}
	_, err := Extract(PartYear, Column(0, "s", typString))
	wantErr(t, err, ErrType, "EXTRACT(YEAR FROM …) needs a date or a timestamp, got utf8 (s)")
	_, err = Extract(0, Column(0, "d", typDate32))
	wantErr(t, err, ErrType, "unknown date part")
	_, err = Extract(PartYear, nil)
	wantErr(t, err, ErrType, "nil operand")
	x := must(Extract(PartWeek, Column(0, "d", typDate32)))
	if x.String() != "EXTRACT(WEEK FROM d)" || Inspect(x).Kind != KindExtract || Inspect(x).Part != PartWeek {
		t.Errorf("String() = %q, Inspect = %+v", x, Inspect(x))
	}
	if s := must(Extract(PartDayOfWeek, Column(0, "d", typDate32))).String(); s != "date_part('dow', d)" {
		t.Errorf("String() = %q", s)
	}
	// a term: no parentheses around it in a larger expression
	if s := must(Arith(Add, x, lit(int64(1)))).String(); s != "EXTRACT(WEEK FROM d) + 1" {
		t.Errorf("String() = %q", s)
	}
}

func TestParseDatePart(t *testing.T) {
	for p := PartYear; int(p) < len(partNames); p++ {
		for _, s := range []string{p.String(), strings.ToUpper(p.String())} {
			if got, err := ParseDatePart(s); err != nil || got != p {
				t.Errorf("ParseDatePart(%q) = %v, %v", s, got, err)
			}
		}
	}
	for s, want := range map[string]DatePart{"dayofweek": PartDayOfWeek, "weekday": PartDayOfWeek, "dayofyear": PartDayOfYear,
		"weekofyear": PartWeek, "dayofmonth": PartDay, "Years": PartYear} {
		if got, err := ParseDatePart(s); err != nil || got != want {
			t.Errorf("ParseDatePart(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	_, err := ParseDatePart("fortnight")
	wantErr(t, err, ErrInvalid, "'fortnight'", "year, quarter")
	if s := DatePart(99).String(); s != "DatePart(99)" {
		t.Errorf("String() = %q", s)
	}
	for p := PartYear; int(p) < len(partNames); p++ {
		if strings.HasPrefix(p.String(), "DatePart(") {
			t.Errorf("part %d has no name", p)
		}
	}
}
