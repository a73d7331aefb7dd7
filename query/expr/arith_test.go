package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestIntegerOverflow(t *testing.T) {
	cols := []jcol{
		{"l_quantity", typInt64, `[9223373, 1, null]`},
		{"mx", typInt64, `[9223372036854775807, 1, 5]`},
		{"mn", typInt64, `[-9223372036854775808, 0, 5]`},
		{"m1", typInt64, `[-1, 1, 1]`},
	}
	c := func(n string) Expr { return jexpr(cols, n) }
	for _, tc := range []struct {
		e    Expr
		text string
	}{
		{must(Arith(Mul, c("l_quantity"), lit(int64(1000000000000)))), "integer overflow in l_quantity * 1000000000000"},
		{must(Arith(Add, c("mx"), lit(int64(1)))), "integer overflow in mx + 1"},
		{must(Arith(Add, c("mn"), c("m1"))), "integer overflow in mn + m1"},
		{must(Arith(Sub, c("mn"), lit(int64(1)))), "integer overflow in mn - 1"},
		{must(Arith(Sub, lit(int64(0)), c("mn"))), "integer overflow in 0 - mn"},
		{must(Arith(Mul, c("mn"), c("m1"))), "integer overflow in mn * m1"},
		{must(Arith(Mul, c("mx"), c("mx"))), "integer overflow in mx * mx"},
		{must(Arith(Div, c("mn"), c("m1"))), "integer overflow in mn / m1"},
		{must(Negate(c("mn"))), "integer overflow in -mn"},
		{must(Arith(Add, must(Arith(Mul, c("mx"), lit(int64(2)))), c("m1"))), "integer overflow in mx * 2"},
	} {
		_, err := evalValues(t, tc.e, cols...)
		wantErr(t, err, ErrOverflow, tc.text)
		if err == nil {
			t.Logf("no error for %s", tc.e)
		}
		if err != nil && err.Error() != tc.text {
			t.Errorf("message %q, want %q", err, tc.text)
		}
	}
	// MinInt64 % -1 is 0 (Postgres), not an overflow
	got, err := evalValues(t, must(Arith(Mod, c("mn"), c("m1"))), cols...)
	if err != nil || showAll(got) != "[0 0 0]" {
		t.Errorf("mn %% m1 = %v, %v", showAll(got), err)
	}
}

func TestIntegerDivision(t *testing.T) {
	cols := []jcol{
		{"a", typInt64, `[7, -7, 7, -7, 0, null, 5]`},
		{"b", typInt64, `[2, 2, -2, -2, 3, 0, null]`},
	}
	a, b := jexpr(cols, "a"), jexpr(cols, "b")
	for op, want := range map[ArithOp]string{
		Div: "[3 -3 -3 3 0 NULL NULL]", // toward zero
		Mod: "[1 -1 1 -1 0 NULL NULL]", // sign of the dividend
	} {
		got, err := evalValues(t, must(Arith(op, a, b)), cols...)
		if err != nil || showAll(got) != want {
			t.Errorf("a %s b = %s, %v; want %s", op, showAll(got), err, want)
		}
	}
}

func TestDivisionByZero(t *testing.T) {
	cols := []jcol{
		{"i", typInt64, `[1, 0]`},
		{"f", typFloat64, `[1.5, 0]`},
		{"d", decimalType(5, 2), `["1.50", "0.00"]`},
		{"z", typInt64, `[0, 0]`},
		{"fz", typFloat64, `[0, 0]`},
		{"dz", decimalType(5, 2), `["0.00", "0.00"]`},
	}
	c := func(n string) Expr { return jexpr(cols, n) }
	for _, op := range []ArithOp{Div, Mod} {
		for _, p := range [][2]string{{"i", "z"}, {"f", "fz"}, {"d", "dz"}, {"i", "dz"}, {"f", "z"}, {"z", "z"}} {
			e := must(Arith(op, c(p[0]), c(p[1])))
			_, err := evalValues(t, e, cols...)
			wantErr(t, err, ErrDivisionByZero, "division by zero in "+e.String())
		}
		// a literal zero divisor too; the constant 1 / 0 is kept for Eval
		e := must(Arith(op, c("i"), lit(int64(0))))
		_, err := evalValues(t, e, cols...)
		wantErr(t, err, ErrDivisionByZero)
		e = must(Arith(op, lit(int64(1)), lit(int64(0))))
		if _, ok := e.(*literal); ok {
			t.Errorf("1 %s 0 was folded", op)
		}
		_, err = evalOne(t, e)
		wantErr(t, err, ErrDivisionByZero)
	}
	// a NULL dividend or divisor never divides
	nulls := []jcol{{"n", typInt64, `[null, 1]`}, {"z", typInt64, `[0, null]`}}
	got, err := evalValues(t, must(Arith(Div, jexpr(nulls, "n"), jexpr(nulls, "z"))), nulls...)
	if err != nil || showAll(got) != "[NULL NULL]" {
		t.Errorf("NULL / 0 = %s, %v", showAll(got), err)
	}
}

func TestDecimalArithmetic(t *testing.T) {
	for _, tc := range []struct {
		l    Expr
		op   ArithOp
		r    Expr
		typ  string
		want string
	}{
		{dec("1.10", 15, 2), Add, dec("2.2050", 12, 4), "decimal(18, 4)", "3.3050"},
		{dec("1.10", 15, 2), Sub, dec("2.2050", 12, 4), "decimal(18, 4)", "-1.1050"},
		{dec("1.10", 15, 2), Mul, dec("2.2050", 12, 4), "decimal(27, 6)", "2.425500"},
		{dec("1.00", 15, 2), Div, dec("3.0000", 12, 4), "decimal(32, 15)", "0.333333333333333"},
		{dec("2.00", 3, 2), Div, dec("3.00", 3, 2), "decimal(9, 6)", "0.666667"},
		{dec("-2.00", 3, 2), Div, dec("3.00", 3, 2), "decimal(9, 6)", "-0.666667"},
		{dec("1", 38, 4), Div, dec("3", 38, 4), "decimal(38, 6)", "0.333333"},
		{dec("7.50", 5, 2), Mod, dec("2.0", 3, 1), "decimal(4, 2)", "1.50"},
		{dec("-7.50", 5, 2), Mod, dec("2.0", 3, 1), "decimal(4, 2)", "-1.50"},
		{lit(int64(3)), Mul, dec("1.25", 5, 2), "decimal(6, 2)", "3.75"},
		{lit(int64(1)), Sub, dec("0.05", 15, 2), "decimal(16, 2)", "0.95"},
		{dec("99999999999999999999999999999999999999", 38, 0), Add, dec("-1", 1, 0), "decimal(38, 0)", "99999999999999999999999999999999999998"},
		{dec("1.5", 2, 1), Add, lit(0.25), "float64", "1.75"},
	} {
		e, err := Arith(tc.op, tc.l, tc.r)
		if err != nil {
			t.Errorf("%s %s %s: %v", tc.l, tc.op, tc.r, err)
			continue
		}
		if e.Type().String() != tc.typ {
			t.Errorf("%s: type %s, want %s", e, e.Type(), tc.typ)
		}
		// through a column, so the kernel (not only folding) runs
		cols := []jcol{{"x", tc.l.Type(), "[" + jsonOf(tc.l) + ", null]"}}
		e2 := must(Arith(tc.op, jexpr(cols, "x"), tc.r))
		got, err := evalText(t, e2, cols...)
		if err != nil || got[0] != tc.want || got[1] != "NULL" {
			t.Errorf("%s = %v, %v; want %s", e2, got, err, tc.want)
		}
	}
}

// jsonOf is a literal's value as Arrow JSON.
func jsonOf(e Expr) string {
	s := e.String()
	if e.Type().ID() == arrow.DECIMAL128 {
		return `"` + s + `"`
	}
	return s
}

func TestDecimalOverflow(t *testing.T) {
	big := `["99999999999999999999999999999999999999", "1"]`
	cols := []jcol{{"a", decimalType(38, 0), big}, {"b", decimalType(38, 2), `["0.01", "1.00"]`}}
	a, b := jexpr(cols, "a"), jexpr(cols, "b")
	for _, e := range []Expr{
		must(Arith(Add, a, a)),
		must(Arith(Mul, a, lit(int64(10)))),
		must(Arith(Sub, must(Negate(a)), a)),
		must(Arith(Add, a, b)), // a rescaled to scale 2 no longer fits
		must(Arith(Div, a, b)),
		must(Cast(a, decimalType(37, 0))),
	} {
		_, err := evalValues(t, e, cols...)
		wantErr(t, err, ErrOverflow, e.String())
	}
	// the scale of a product must fit 38
	_, err := Arith(Mul, dec("1", 38, 20), dec("1", 38, 20))
	wantErr(t, err, ErrType, "scale 40")
}

func TestDecimalResultTypes(t *testing.T) {
	d := decimalType
	for _, tc := range []struct {
		op   ArithOp
		a, b *arrow.Decimal128Type
		want string
	}{
		{Add, d(15, 2), d(15, 2), "decimal(16, 2)"},
		{Add, d(38, 0), d(38, 10), "decimal(38, 10)"},
		{Mul, d(15, 2), d(15, 2), "decimal(30, 4)"},
		{Mul, d(30, 4), d(15, 2), "decimal(38, 6)"},
		{Div, d(15, 2), d(15, 2), "decimal(33, 18)"},
		{Div, d(38, 6), d(38, 4), "decimal(38, 6)"},
		{Div, d(38, 2), d(38, 30), "decimal(38, 6)"},
		{Div, d(10, 8), d(3, 0), "decimal(14, 12)"},
		{Mod, d(15, 2), d(3, 0), "decimal(5, 2)"},
		{Mod, d(2, 2), d(3, 3), "decimal(3, 3)"},
	} {
		got, err := decimalArithType(tc.op, tc.a, tc.b)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s %s %s = %v, %v; want %s", tc.a, tc.op, tc.b, got, err, tc.want)
		}
	}
}

func TestArithTypeErrors(t *testing.T) {
	dt := Column(0, "l_shipdate", typDate32)
	s := Column(1, "s", typString)
	for _, tc := range []struct {
		l, r Expr
		text string
	}{
		{dt, lit(1.5), "cannot apply - to date32 and float64 (l_shipdate - 1.5)"},
		{lit(int64(5)), dt, "cannot apply - to int64 and date32 (5 - l_shipdate)"},
		{s, s, "cannot apply - to utf8 and utf8 (s - s)"},
		{lit(true), lit(int64(1)), "cannot apply - to bool and int64"},
	} {
		_, err := Arith(Sub, tc.l, tc.r)
		wantErr(t, err, ErrType, tc.text)
	}
	_, err := Negate(s)
	wantErr(t, err, ErrType, "cannot negate utf8")
	_, err = Arith(ArithOp(9), lit(int64(1)), lit(int64(1)))
	wantErr(t, err, ErrType)
	_, err = Arith(Add, Column(0, "x", arrow.PrimitiveTypes.Int32), lit(int64(1)))
	wantErr(t, err, ErrType, "not an engine type")
}

func TestNullArithmetic(t *testing.T) {
	for _, e := range []Expr{
		must(Arith(Add, lit(nil), lit(int64(1)))),
		must(Arith(Mul, lit(nil), lit(nil))),
		must(Arith(Div, dec("1.5", 2, 1), NullLiteral(typFloat64))),
		must(Negate(lit(nil))),
	} {
		v, err := evalOne(t, e)
		if err != nil || v != nil {
			t.Errorf("%s = %v, %v; want NULL", e, v, err)
		}
		if e.Type().ID() == arrow.NULL {
			t.Errorf("%s has type NULL", e)
		}
	}
	if e := must(Arith(Mul, lit(nil), lit(nil))); !strings.Contains(e.Type().String(), "int64") {
		t.Errorf("NULL * NULL is %s, want int64", e.Type())
	}
}
