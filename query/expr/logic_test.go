package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// The nine pairs of TRUE, FALSE and NULL, as columns.
var truthCols = []jcol{
	{"p", typBool, `[true, true, true, false, false, false, null, null, null]`},
	{"q", typBool, `[true, false, null, true, false, null, true, false, null]`},
}

func TestTruthTables(t *testing.T) {
	p, q := jexpr(truthCols, "p"), jexpr(truthCols, "q")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(And(p, q)), "[true false NULL false false false NULL false NULL]"},
		{must(Or(p, q)), "[true true true true false NULL true NULL NULL]"},
		{must(Not(p)), "[false false false true true true NULL NULL NULL]"},
		{IsNull(q), "[false false true false false true false false true]"},
		{IsNotNull(q), "[true true false true true false true true false]"},
		{must(And(p, lit(nil))), "[NULL NULL NULL false false false NULL NULL NULL]"},
		{must(Or(p, lit(nil))), "[true true true NULL NULL NULL NULL NULL NULL]"},
		{must(And(p, lit(false))), "[false false false false false false false false false]"},
		{must(Or(lit(true), q)), "[true true true true true true true true true]"},
		{must(Compare(Eq, p, q)), "[true false NULL false true NULL NULL NULL NULL]"},
		{must(Compare(Lt, p, q)), "[false false NULL true false NULL NULL NULL NULL]"},
	} {
		got, err := evalValues(t, tc.e, truthCols...)
		if err != nil || showAll(got) != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.e, showAll(got), err, tc.want)
		}
	}
	// constants fold to the same answers
	vals := []Expr{lit(true), lit(false), lit(nil)}
	want := [3][3]any{{true, false, nil}, {false, false, false}, {nil, false, nil}}
	for i, a := range vals {
		for j, b := range vals {
			e := must(And(a, b))
			if _, ok := e.(*literal); !ok {
				t.Errorf("%s was not folded", e)
			}
			if v, err := evalOne(t, e); err != nil || v != want[i][j] {
				t.Errorf("%s = %v, %v; want %v", e, v, err, want[i][j])
			}
		}
	}
}

func TestInNulls(t *testing.T) {
	cols := []jcol{{"x", typInt64, `[1, 2, 3, null]`}, {"y", typInt64, `[1, null, 5, 1]`}}
	x, y := jexpr(cols, "x"), jexpr(cols, "y")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(In(x, []Expr{lit(int64(2)), lit(nil)})), "[NULL true NULL NULL]"},
		{must(In(x, []Expr{lit(int64(2)), lit(int64(3))})), "[false true true NULL]"},
		{must(In(x, []Expr{y, lit(int64(2))})), "[true true false NULL]"},
		{must(In(x, []Expr{y})), "[true NULL false NULL]"},
		{must(In(x, []Expr{dec("1.0", 2, 1), lit(nil)})), "[true NULL NULL NULL]"},
		{must(In(x, []Expr{lit(1.0), lit(2.5)})), "[true false false NULL]"},
		{must(Not(must(In(x, []Expr{lit(int64(2)), lit(nil)})))), "[NULL false NULL NULL]"},
	} {
		got, err := evalValues(t, tc.e, cols...)
		if err != nil || showAll(got) != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.e, showAll(got), err, tc.want)
		}
	}
	_, err := In(x, nil)
	wantErr(t, err, ErrType)
	_, err = In(x, []Expr{lit("a")})
	wantErr(t, err, ErrType, "cannot compare int64 with utf8 (x IN ('a'))")
}

func TestBetween(t *testing.T) {
	cols := []jcol{{"x", typInt64, `[4, 5, 6, 7, 8, null]`}, {"hi", typInt64, `[9, 9, 9, null, null, 9]`}}
	x, hi := jexpr(cols, "x"), jexpr(cols, "hi")
	e := must(Between(x, lit(int64(5)), hi))
	if e.String() != "x BETWEEN 5 AND hi" {
		t.Errorf("String() = %q", e)
	}
	got, err := evalValues(t, e, cols...)
	// 7 BETWEEN 5 AND NULL is NULL; 4 BETWEEN 5 AND NULL is FALSE
	if want := "[false true true NULL NULL NULL]"; err != nil || showAll(got) != want {
		t.Errorf("%s = %s, %v; want %s", e, showAll(got), err, want)
	}
	_, err = Between(x, lit("a"), lit("b"))
	wantErr(t, err, ErrType)
}

func TestLogicTypeErrors(t *testing.T) {
	i := Column(0, "i", typInt64)
	for _, f := range []func() (Expr, error){
		func() (Expr, error) { return And(i, lit(true)) },
		func() (Expr, error) { return Or(lit(true), i) },
		func() (Expr, error) { return Not(i) },
		func() (Expr, error) { return Case([]When{{i, lit(int64(1))}}, nil) },
	} {
		_, err := f()
		wantErr(t, err, ErrType, "int64")
	}
}

func TestIsNullEveryType(t *testing.T) {
	for _, typ := range []arrow.DataType{typBool, typInt64, typFloat64, decimalType(15, 2), typString, typDate32} {
		mk := map[arrow.Type]string{
			arrow.BOOL: `[true, null]`, arrow.INT64: `[1, null]`, arrow.FLOAT64: `[1, null]`,
			arrow.DECIMAL128: `["1", null]`, arrow.STRING: `["", null]`, arrow.DATE32: `[1, null]`,
		}
		cols := []jcol{{"x", typ, mk[typ.ID()]}}
		got, err := evalValues(t, IsNull(jexpr(cols, "x")), cols...)
		if err != nil || showAll(got) != "[false true]" {
			t.Errorf("%s IS NULL = %s, %v", typ, showAll(got), err)
		}
	}
	if v, err := evalOne(t, IsNull(lit(nil))); err != nil || v != true {
		t.Errorf("NULL IS NULL = %v, %v", v, err)
	}
}
