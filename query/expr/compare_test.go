package expr

import (
	"math"
	"testing"
)

func TestCompareFloatOrder(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	for _, tc := range []struct {
		a, b float64
		op   CmpOp
		want bool
	}{
		{nan, nan, Eq, true},
		{nan, inf, Gt, true},
		{nan, 1, Ne, true},
		{inf, nan, Lt, true},
		{math.Copysign(0, -1), 0, Eq, true},
		{-inf, -1e308, Lt, true},
		{1, 2, Ge, false},
	} {
		cols := []jcol{{"a", typFloat64, `[1]`}, {"b", typFloat64, `[1]`}}
		// JSON has no NaN: build the rows through casts of literals instead
		e := must(Compare(tc.op, must(Arith(Add, jexpr(cols, "a"), lit(tc.a-1))), must(Arith(Add, jexpr(cols, "b"), lit(tc.b-1)))))
		got, err := evalValues(t, e, cols...)
		if err != nil || got[0] != tc.want {
			t.Errorf("%v %s %v = %v, %v; want %v", tc.a, tc.op, tc.b, got, err, tc.want)
		}
		// and as constants (folded)
		if v, err := evalOne(t, must(Compare(tc.op, lit(tc.a), lit(tc.b)))); err != nil || v != tc.want {
			t.Errorf("literal %v %s %v = %v, %v", tc.a, tc.op, tc.b, v, err)
		}
	}
}

func TestCompareStringsAndDates(t *testing.T) {
	cols := []jcol{
		{"s", typString, `["a", "B", "é", "", null]`},
		{"d", typDate32, `[10561, 10562, 10563, 0, null]`},
	}
	s, d := jexpr(cols, "s"), jexpr(cols, "d")
	got, err := evalValues(t, must(Compare(Lt, s, lit("b"))), cols...)
	if err != nil || showAll(got) != "[true true false true NULL]" {
		t.Errorf("s < 'b' = %s, %v (bytewise: B < a < b < é)", showAll(got), err)
	}
	e := must(Compare(Le, d, lit("1998-12-01")))
	if e.String() != "d <= DATE '1998-12-01'" {
		t.Errorf("String() = %q", e)
	}
	got, err = evalValues(t, e, cols...)
	if err != nil || showAll(got) != "[true false false true NULL]" { // 10561 is 1998-12-01
		t.Errorf("%s = %s, %v", e, showAll(got), err)
	}
	_, err = Compare(Lt, d, lit("1998-13-01"))
	wantErr(t, err, ErrType, "'1998-13-01'", "not a date")
}

func TestCompareDecimalScales(t *testing.T) {
	cols := []jcol{
		{"a", decimalType(2, 1), `["1.5", "-1.5", null]`},
		{"b", decimalType(3, 2), `["1.50", "-1.51", "0"]`},
		{"q", decimalType(15, 2), `["24.00", "23.99", "24.01"]`},
	}
	a, b, q := jexpr(cols, "a"), jexpr(cols, "b"), jexpr(cols, "q")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Compare(Eq, a, b)), "[true false NULL]"},
		{must(Compare(Gt, a, b)), "[false true NULL]"},
		{must(Compare(Lt, q, lit(int64(24)))), "[false true false]"},
		{must(Compare(Eq, q, dec("24.0", 3, 1))), "[true false false]"},
		{must(Compare(Lt, q, lit(23.995))), "[false true false]"},
		{must(Between(q, dec("23.995", 5, 3), lit(int64(24)))), "[true false false]"},
	} {
		got, err := evalValues(t, tc.e, cols...)
		if err != nil || showAll(got) != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.e, showAll(got), err, tc.want)
		}
	}
	// the literal takes the column's type rather than the column being cast
	if e := must(Compare(Lt, q, lit(int64(24)))); e.String() != "q < 24" || Inspect(e).Args[1].Type().String() != "decimal(15, 2)" {
		t.Errorf("String() = %q", e)
	}
	// rescaling to the common scale can pass 38 digits: an error, not a wrong answer
	big := []jcol{{"x", decimalType(38, 0), `["10000000000000000000000000000000000000"]`}}
	_, err := evalValues(t, must(Compare(Gt, jexpr(big, "x"), dec("1.5", 38, 10))), big...)
	wantErr(t, err, ErrOverflow)
}

func TestCompareTypeErrors(t *testing.T) {
	dt := Column(0, "l_shipdate", typDate32)
	for _, tc := range []struct {
		l, r Expr
		text string
	}{
		{dt, lit(int64(5)), "cannot compare date32 with int64 (l_shipdate < 5)"},
		{Column(1, "s", typString), lit(int64(5)), "cannot compare utf8 with int64 (s < 5)"},
		{lit(true), lit(int64(1)), "cannot compare bool with int64"},
		{dt, Column(2, "ts", typString), "cannot compare date32 with utf8"},
	} {
		_, err := Compare(Lt, tc.l, tc.r)
		wantErr(t, err, ErrType, tc.text)
		if err != nil && err.Error() != tc.text && tc.text[len(tc.text)-1] == ')' {
			t.Errorf("message %q, want %q", err, tc.text)
		}
	}
	_, err := Compare(CmpOp(7), lit(int64(1)), lit(int64(1)))
	wantErr(t, err, ErrType)
}
