package expr

import (
	"strings"
	"testing"
)

// call builds name(args...) or fails the test.
func call(t *testing.T, name string, args ...Expr) Expr {
	t.Helper()
	e, err := Call(name, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

func TestCallResolvesOverloads(t *testing.T) {
	i := Column(0, "i", typInt64)
	f := Column(1, "f", typFloat64)
	d := Column(2, "d", decimalType(12, 3))
	s := Column(3, "s", typString)
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call(t, "abs", i), "int64"},
		{call(t, "abs", f), "float64"},
		{call(t, "abs", d), "decimal(12, 3)"},
		{call(t, "round", d, lit(int64(1))), "decimal(12, 1)"},
		{call(t, "round", d, lit(int64(7))), "decimal(12, 3)"},
		{call(t, "ceil", d), "decimal(12, 0)"},
		{call(t, "sqrt", i), "float64"},
		{call(t, "length", s), "int64"},
		{call(t, "greatest", i, d), "decimal(22, 3)"},
		{call(t, "concat", s, i, lit(nil)), "utf8"},
		{call(t, "date_trunc", lit("month"), Column(4, "ts", typTimestampTZ)), "timestamp[us, tz=UTC]"},
		{call(t, "date_part", lit("epoch"), Column(4, "ts", typTimestamp)), "float64"},
	} {
		if got := tc.e.Type().String(); got != tc.want {
			t.Errorf("%s: type %s, want %s", tc.e, got, tc.want)
		}
	}
}

func TestCallErrors(t *testing.T) {
	s := Column(0, "s", typString)
	i := Column(1, "i", typInt64)
	for _, tc := range []struct {
		name string
		args []Expr
		want string
	}{
		{"left", []Expr{s}, "no function left(varchar); candidates: left(varchar, bigint)"},
		{"left", []Expr{i, i}, "no function left(bigint, bigint)"},
		{"round", []Expr{s}, "candidates: round(numeric), round(numeric, bigint)"},
		{"concat_ws", []Expr{s}, "concat_ws needs a separator and at least one argument"},
		{"concat_ws", nil, "no function concat_ws(); candidates: concat_ws(varchar, any, …)"},
		{"nope", []Expr{s}, "no function nope"},
		{"date_trunc", []Expr{s, Column(2, "d", typDate32)}, "date_trunc: the part must be a string constant"},
		{"date_trunc", []Expr{lit("fortnight"), Column(2, "d", typDate32)}, "date_trunc: unknown part 'fortnight'"},
		{"strftime", []Expr{Column(2, "d", typDate32), lit("%Q")}, "strftime: unknown format specifier '%Q'"},
		{"regexp_matches", []Expr{s, lit("(")}, "regexp_matches: invalid pattern '('"},
		{"regexp_matches", []Expr{s, s}, "regexp_matches: the pattern must be a string constant"},
		{"round", []Expr{Column(2, "d", decimalType(10, 2)), i}, "round: the number of digits must be an integer constant"},
	} {
		_, err := Call(tc.name, tc.args...)
		wantErr(t, err, ErrType, tc.want)
	}
}

func TestStringFunctions(t *testing.T) {
	cols := []jcol{
		{"s", typString, `["héllo wörld", "", null, "  ab  ", "a,b,,c", "日本語"]`},
		{"n", typInt64, `[2, -1, 3, 8, -2, null]`},
	}
	s, n := jexpr(cols, "s"), jexpr(cols, "n")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call(t, "length", s), "[11 0 NULL 6 6 3]"},
		{call(t, "octet_length", s), "[13 0 NULL 6 6 9]"},
		{call(t, "upper", s), "[HÉLLO WÖRLD  NULL   AB   A,B,,C 日本語]"},
		{call(t, "trim", s), "[héllo wörld  NULL ab a,b,,c 日本語]"},
		{call(t, "left", s, n), "[hé  NULL   ab   a,b, NULL]"},
		{call(t, "right", s, n), "[ld  NULL   ab   b,,c NULL]"},
		{call(t, "lpad", s, n, lit("xy")), "[hé  NULL xy  ab    NULL]"},
		{call(t, "rpad", lit("ab"), n, lit("é")), "[ab  abé abéééééé  NULL]"},
		{call(t, "split_part", s, lit(","), n), "[  NULL   NULL]"},
		{call(t, "strpos", s, lit("l")), "[3 0 NULL 0 0 0]"},
		{call(t, "reverse", s), "[dlröw olléh  NULL   ba   c,,b,a 語本日]"},
		{call(t, "repeat", s, n), "[héllo wörldhéllo wörld  NULL   ab    ab    ab    ab    ab    ab    ab    ab    NULL]"},
		{call(t, "concat", s, lit(nil), n), "[héllo wörld2 -1 3   ab  8 a,b,,c-2 日本語]"},
		{call(t, "concat_ws", lit("|"), s, n), "[héllo wörld|2 |-1 3   ab  |8 a,b,,c|-2 日本語]"},
		{call(t, "contains", s, lit("b")), "[false false NULL true true false]"},
	} {
		got, err := evalText(t, tc.e, cols...)
		if err != nil {
			t.Errorf("%s: %v", tc.e, err)
			continue
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.e, s, tc.want)
		}
	}
}

func TestMathFunctions(t *testing.T) {
	cols := []jcol{
		{"i", typInt64, `[-7, 0, 9223372036854775807, null, 15]`},
		{"f", typFloat64, `[-2.5, 0.125, 1e300, null, 2.675]`},
		{"d", decimalType(6, 3), `["-2.555", "0.125", "999.999", null, "12.345"]`},
	}
	i, f, d := jexpr(cols, "i"), jexpr(cols, "f"), jexpr(cols, "d")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call(t, "abs", i), "[7 0 9223372036854775807 NULL 15]"},
		{call(t, "sign", f), "[-1 1 1 NULL 1]"},
		{call(t, "round", f), "[-3 0 1e+300 NULL 3]"},
		{call(t, "round", f, lit(int64(1))), "[-2.5 0.1 1e+300 NULL 2.7]"},
		{call(t, "round", d, lit(int64(2))), "[-2.56 0.13 1000.00 NULL 12.35]"},
		{call(t, "round", d, lit(int64(-1))), "[0 0 1000 NULL 10]"},
		{call(t, "ceil", d), "[-2 1 1000 NULL 13]"},
		{call(t, "floor", d), "[-3 0 999 NULL 12]"},
		{call(t, "trunc", d), "[-2 0 999 NULL 12]"},
		{call(t, "round", i, lit(int64(-1))), "[-10 0 NULL NULL 20]"},
		{call(t, "greatest", i, f, lit(nil)), "[-2.5 0.125 1e+300 NULL 15]"},
		{call(t, "least", d, lit(int64(1))), "[-2.555 0.125 1.000 1.000 1.000]"},
	} {
		if strings.Contains(tc.e.String(), "round(i, -1)") {
			// 9223372036854775807 rounds past BIGINT: the row fails
			_, err := evalText(t, tc.e, cols...)
			wantErr(t, err, ErrOverflow, "round: integer overflow rounding 9223372036854775807 to -1 digits")
			continue
		}
		got, err := evalText(t, tc.e, cols...)
		if err != nil {
			t.Errorf("%s: %v", tc.e, err)
			continue
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.e, s, tc.want)
		}
	}
	_, err := evalText(t, call(t, "sqrt", f), cols...)
	wantErr(t, err, ErrInvalid, "sqrt: cannot take the square root of a negative number (-2.5) (in sqrt(f))")
	_, err = evalText(t, call(t, "ln", call(t, "abs", i)), cols...)
	wantErr(t, err, ErrInvalid, "ln: cannot take the logarithm of zero")
	_, err = evalText(t, call(t, "abs", lit(int64(-9223372036854775807-1))), cols...)
	wantErr(t, err, ErrOverflow, "abs: integer overflow: abs(-9223372036854775808)")
}

func TestDateFunctions(t *testing.T) {
	cols := []jcol{
		{"ts", typTimestamp, `["2024-02-29T23:59:59.123456", "1969-12-31T23:30:00", null, "2024-03-31T01:00:00"]`},
		{"d", typDate32, `["2024-02-29", "1900-02-28", "2000-01-01", null]`},
	}
	ts, d := jexpr(cols, "ts"), jexpr(cols, "d")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call(t, "date_trunc", lit("month"), ts), "[2024-02-01 00:00:00 1969-12-01 00:00:00 NULL 2024-03-01 00:00:00]"},
		{call(t, "date_trunc", lit("week"), d), "[2024-02-26 00:00:00 1900-02-26 00:00:00 1999-12-27 00:00:00 NULL]"},
		{call(t, "date_trunc", lit("hour"), ts), "[2024-02-29 23:00:00 1969-12-31 23:00:00 NULL 2024-03-31 01:00:00]"},
		{call(t, "date_diff", lit("day"), d, ts), "[0 25508 NULL NULL]"},
		{call(t, "date_diff", lit("hour"), ts, TimestampLiteral(0, false)), "[-474791 1 NULL -475513]"},
		{call(t, "date_diff", lit("month"), d, ts), "[0 838 NULL NULL]"},
	} {
		got, err := evalText(t, tc.e, cols...)
		if err != nil {
			t.Errorf("%s: %v", tc.e, err)
			continue
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.e, s, tc.want)
		}
	}
	got, err := evalText(t, call(t, "strftime", ts, lit("%Y-%m-%d %H:%M:%S.%f %a %j %p")), cols...)
	if err != nil || strings.Join(got, "|") != "2024-02-29 23:59:59.123456 Thu 060 PM|1969-12-31 23:30:00.000000 Wed 365 PM|NULL|2024-03-31 01:00:00.000000 Sun 091 AM" {
		t.Errorf("strftime: %q, %v", got, err)
	}
	// A constant call that fails is not folded: the error waits for the
	// rows that reach it.
	_, err = evalText(t, call(t, "make_date", lit(int64(2023)), lit(int64(2)), lit(int64(29))), cols...)
	wantErr(t, err, ErrInvalid, "make_date: date out of range: 2023-2-29")
}

// TestReplaceAsksTheBudget: replace's growth is bounded before it builds.
func TestReplaceAsksTheBudget(t *testing.T) {
	big := strings.Repeat("x", 1<<16)
	e := call(t, "replace", Column(0, "s", typString), lit("a"), lit(big))
	_, err := evalText(t, e, jcol{"s", typString, `["` + strings.Repeat("a", 1<<16) + `"]`})
	wantErr(t, err, ErrOverflow, "replace: the results of one batch pass")
}

func TestStrptime(t *testing.T) {
	cols := []jcol{{"s", typString, `["2024-02-29 10:11:12", "29/02/2024", null, "2024-02-30 00:00:00", "2024-060 01:02 PM"]`}}
	s := jexpr(cols, "s")
	got, err := evalText(t, call(t, "try_strptime", s, lit("%Y-%m-%d %H:%M:%S")), cols...)
	if err != nil || strings.Join(got, "|") != "2024-02-29 10:11:12|NULL|NULL|NULL|NULL" {
		t.Errorf("try_strptime: %q, %v", got, err)
	}
	got, err = evalText(t, call(t, "try_strptime", s, lit("%Y-%j %I:%M %p")), cols...)
	if err != nil || strings.Join(got, "|") != "NULL|NULL|NULL|NULL|2024-02-29 13:02:00" {
		t.Errorf("try_strptime %%j: %q, %v", got, err)
	}
	_, err = evalText(t, call(t, "strptime", s, lit("%Y-%m-%d %H:%M:%S")), cols...)
	wantErr(t, err, ErrInvalidCast, "strptime: could not parse '29/02/2024' with format '%Y-%m-%d %H:%M:%S'")
	tz := call(t, "strptime", lit("2024-01-01 10:00 +02:30"), lit("%Y-%m-%d %H:%M %z"))
	if v, err := text1(t, tz); err != nil || v != "2024-01-01 07:30:00+00" {
		t.Errorf("%%z: %q, %v", v, err)
	}
	_, err = Call("strptime", s, lit("%Q"))
	wantErr(t, err, ErrType, "strptime: unknown format specifier '%Q'")
}

// TestRandomIsNotFolded: random() is another value on every row and is
// never made a constant.
func TestRandomIsNotFolded(t *testing.T) {
	e := call(t, "random")
	if Inspect(e).Kind != KindCall {
		t.Fatalf("random() was folded into %s", e)
	}
	got, err := evalValues(t, e, jcol{"x", typInt64, `[1, 2, 3, 4, 5, 6, 7, 8]`})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[any]bool{}
	for _, v := range got {
		if f := v.(float64); f < 0 || f >= 1 {
			t.Errorf("random() = %v", f)
		}
		seen[v] = true
	}
	if len(seen) < 7 {
		t.Errorf("random() gave %d distinct values in 8 rows", len(seen))
	}
	// The planner asks by name whether a call may move (Volatile).
	for name, want := range map[string]bool{"random": true, "RAND": true, "abs": false, "now": false, "nosuch": false} {
		if got := Volatile(name); got != want {
			t.Errorf("Volatile(%q) = %v, want %v", name, got, want)
		}
	}
}
