package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestCase(t *testing.T) {
	cols := []jcol{
		{"x", typInt64, `[0, 2, 5, null, -4]`},
		{"b", typBool, `[null, true, false, true, null]`},
		{"s", typString, `["a", "bb", null, "dd", "e"]`},
	}
	x, b, s := jexpr(cols, "x"), jexpr(cols, "b"), jexpr(cols, "s")
	gt0 := must(Compare(Gt, x, lit(int64(0))))
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		// CASE WHEN x <> 0 THEN 10 / x ELSE 0 END never divides by zero
		{must(Case([]When{{must(Compare(Ne, x, lit(int64(0)))), must(Arith(Div, lit(int64(10)), x))}}, lit(int64(0)))), "[0 5 2 0 -2]"},
		// the first TRUE arm wins; NULL is not TRUE
		{must(Case([]When{{b, lit(int64(1))}, {gt0, lit(int64(2))}}, lit(int64(3)))), "[3 1 2 1 3]"},
		{must(Case([]When{{b, s}}, nil)), `[NULL "bb" NULL "dd" NULL]`},
		{must(Case([]When{{lit(nil), x}}, lit(int64(7)))), "[7 7 7 7 7]"},
		{must(Case([]When{{lit(true), x}}, must(Arith(Div, x, lit(int64(0)))))), "[0 2 5 NULL -4]"},
		// the values meet in their common type
		{must(Case([]When{{b, x}}, dec("0.5", 2, 1))), "[0.500000000000 2.000000000000 0.500000000000 NULL 0.500000000000]"},
		{must(Case([]When{{b, lit(nil)}}, nil)), "[NULL NULL NULL NULL NULL]"},
		{must(Coalesce(x, lit(int64(-1)))), "[0 2 5 -1 -4]"},
		{must(Coalesce(s, lit("z"))), `["a" "bb" "z" "dd" "e"]`},
		{must(Coalesce(lit(nil), x, must(Arith(Div, lit(int64(1)), x)))), "[0 2 5 NULL -4]"},
		{must(Coalesce(s, must(Cast(must(Arith(Div, lit(int64(10)), x)), typString)))), `["a" "bb" "2" "dd" "e"]`},
	} {
		got, err := evalValues(t, tc.e, cols...)
		if err != nil || showAll(got) != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.e, showAll(got), err, tc.want)
		}
	}
	// an arm that is reached still fails
	_, err := evalValues(t, must(Case([]When{{b, must(Arith(Div, lit(int64(1)), x))}}, nil)), cols...)
	if err != nil {
		t.Errorf("rows where b is TRUE have x <> 0: %v", err)
	}
	_, err = evalValues(t, must(Case([]When{{IsNull(b), must(Arith(Div, lit(int64(1)), x))}}, nil)), cols...)
	wantErr(t, err, ErrDivisionByZero, "1 / x")
	_, err = evalValues(t, must(Coalesce(b, must(Compare(Gt, must(Arith(Div, lit(int64(1)), x)), lit(int64(0)))))), cols...)
	wantErr(t, err, ErrDivisionByZero, "1 / x")

	e := must(Case([]When{{gt0, lit("pos")}, {IsNull(x), lit("null")}}, lit("neg")))
	if want := "CASE WHEN x > 0 THEN 'pos' WHEN x IS NULL THEN 'null' ELSE 'neg' END"; e.String() != want {
		t.Errorf("String() = %q, want %q", e, want)
	}
	if e := must(Case([]When{{b, x}}, nil)); e.String() != "CASE WHEN b THEN x END" {
		t.Errorf("String() = %q", e)
	}
}

func TestCaseErrors(t *testing.T) {
	b := Column(0, "b", typBool)
	_, err := Case(nil, nil)
	wantErr(t, err, ErrType)
	_, err = Case([]When{{b, lit(int64(1))}}, lit("x"))
	wantErr(t, err, ErrType, "CASE", "int64", "utf8")
	_, err = Coalesce()
	wantErr(t, err, ErrType)
	_, err = Coalesce(lit(int64(1)), Column(1, "d", typDate32))
	wantErr(t, err, ErrType, "COALESCE")
	// all NULL stays an untyped NULL
	e := must(Coalesce(lit(nil), lit(nil)))
	if e.Type().ID() != arrow.NULL {
		t.Errorf("COALESCE(NULL, NULL) has type %s", e.Type())
	}
}
