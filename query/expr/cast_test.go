package expr

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestCasts(t *testing.T) {
	for _, tc := range []struct {
		from Expr
		to   arrow.DataType
		want string
	}{
		{lit(int64(9007199254740993)), typFloat64, "9.007199254740992e+15"}, // rounds, no error
		{lit(2.5), typInt64, "2"},   // half to even, as DuckDB's DOUBLE (a DECIMAL rounds half away)
		{lit(-2.5), typInt64, "-2"}, // likewise
		{lit(3.5), typInt64, "4"},
		{lit(2.4999), typInt64, "2"},
		{dec("2.50", 3, 2), typInt64, "3"},
		{dec("-2.49", 3, 2), typInt64, "-2"},
		{dec("1.005", 4, 3), decimalType(4, 2), "1.01"},
		{dec("-1.005", 4, 3), decimalType(4, 2), "-1.01"},
		{dec("1.5", 2, 1), decimalType(10, 4), "1.5000"},
		{lit(int64(-12)), decimalType(5, 2), "-12.00"},
		{lit(0.1), decimalType(5, 3), "0.100"},
		{lit(0.285), decimalType(5, 2), "0.28"}, // 0.285 is 0.28499999999999998 in binary
		{dec("0.1", 1, 1), typFloat64, "0.1"},
		{lit(true), typInt64, "1"},
		{lit(int64(-3)), typBool, "true"},
		{lit(int64(0)), typBool, "false"},
		{lit(" 42 "), typInt64, "42"},
		{lit("+7"), typInt64, "7"},
		{lit("1e3"), typFloat64, "1000"},
		{lit("-0.05"), decimalType(5, 2), "-0.05"},
		{lit("1.005"), decimalType(5, 2), "1.01"},
		{lit("1.5e2"), decimalType(6, 1), "150.0"},
		{lit(".5"), decimalType(3, 2), "0.50"},
		{lit("1998-1-5"), typDate32, "1998-01-05"},
		{lit(" 2024-02-29"), typDate32, "2024-02-29"},
		{lit("YES"), typBool, "true"},
		{lit("off"), typBool, "false"},
		{lit(int64(math.MinInt64)), typString, "-9223372036854775808"},
		{lit(0.1), typString, "0.1"},
		{lit(1e21), typString, "1e+21"},
		{lit(1234567.5), typString, "1234567.5"},
		{lit(math.Inf(-1)), typString, "-Infinity"},
		{dec("-0.05", 3, 2), typString, "-0.05"},
		{dec("7", 1, 0), typString, "7"},
		{date("0001-01-01"), typString, "0001-01-01"},
		{DateLiteral(-800000), typString, "-0221-09-04"},
		{lit(false), typString, "false"},
		{NullLiteral(typNull), typDate32, "NULL"},
	} {
		// through a column, so the kernel runs on an array
		cols := []jcol{{"x", tc.from.Type(), "[null]"}}
		e := must(Cast(tc.from, tc.to))
		got, err := text1(t, e)
		if err != nil || got != tc.want {
			t.Errorf("CAST(%s AS %s) = %q, %v; want %q", tc.from, sqlType(tc.to), got, err, tc.want)
		}
		if tc.from.Type().ID() != arrow.NULL {
			v, err := evalValues(t, must(Cast(jexpr(cols, "x"), tc.to)), cols...)
			if err != nil || v[0] != nil {
				t.Errorf("CAST(NULL %s AS %s) = %v, %v", tc.from.Type(), sqlType(tc.to), v, err)
			}
		}
	}
}

func TestCastFailures(t *testing.T) {
	for _, tc := range []struct {
		from  string // a string column value, or a typed literal below
		lit   Expr
		to    arrow.DataType
		kind  error
		texts []string
	}{
		{from: "abc", to: typInt64, kind: ErrInvalidCast, texts: []string{"'abc'", "BIGINT"}},
		{from: "12.5", to: typInt64, kind: ErrInvalidCast, texts: []string{"'12.5'"}},
		{from: "9223372036854775808", to: typInt64, kind: ErrOverflow, texts: []string{"'9223372036854775808'"}},
		{from: "1e400", to: typFloat64, kind: ErrOverflow, texts: []string{"'1e400'"}},
		{from: "0x10", to: typFloat64, kind: ErrInvalidCast, texts: []string{"'0x10'"}},
		{from: "1/2", to: decimalType(5, 2), kind: ErrInvalidCast, texts: []string{"'1/2'"}},
		{from: "1000.00", to: decimalType(5, 2), kind: ErrOverflow, texts: []string{"'1000.00'", "DECIMAL(5,2)"}},
		{from: "1e100000", to: decimalType(5, 2), kind: ErrOverflow, texts: []string{"'1e100000'"}},
		{from: "2023-02-29", to: typDate32, kind: ErrInvalidCast, texts: []string{"'2023-02-29'", "DATE"}},
		{from: "1998/12/01", to: typDate32, kind: ErrInvalidCast, texts: []string{"'1998/12/01'"}},
		{from: "maybe", to: typBool, kind: ErrInvalidCast, texts: []string{"'maybe'", "BOOLEAN"}},
		{lit: lit(math.NaN()), to: typInt64, kind: ErrOverflow, texts: []string{"NaN"}},
		{lit: lit(1e19), to: typInt64, kind: ErrOverflow, texts: []string{"1e+19"}},
		{lit: lit(math.Inf(1)), to: decimalType(10, 2), kind: ErrOverflow, texts: []string{"Infinity"}},
		{lit: lit(1e8), to: decimalType(10, 2), kind: ErrOverflow, texts: []string{"100000000"}},
		{lit: dec("12345.678", 8, 3), to: decimalType(5, 2), kind: ErrOverflow, texts: []string{"12345.678", "DECIMAL(5,2)"}},
		{lit: dec("99999999999999999999", 20, 0), to: typInt64, kind: ErrOverflow, texts: []string{"99999999999999999999"}},
		{lit: lit(int64(100000)), to: decimalType(5, 1), kind: ErrOverflow, texts: []string{"100000"}},
	} {
		var cols []jcol
		var x Expr
		if tc.lit != nil {
			x = tc.lit
		} else {
			cols = []jcol{{"s", typString, `["` + tc.from + `"]`}}
			x = jexpr(cols, "s")
		}
		e, err := Cast(x, tc.to)
		if err == nil {
			_, err = evalValues(t, e, cols...)
		}
		wantErr(t, err, tc.kind, tc.texts...)
	}
	// casts that make no sense fail at plan time
	for _, p := range [][2]arrow.DataType{{typDate32, typInt64}, {typBool, typFloat64}, {typFloat64, typDate32}, {typInt64, arrow.PrimitiveTypes.Int32}} {
		_, err := Cast(Column(0, "x", p[0]), p[1])
		wantErr(t, err, ErrType)
	}
}

func TestCastLiteralString(t *testing.T) {
	if e := must(Cast(lit(2.5), typInt64)); e.String() != "2" {
		t.Errorf("CAST(2.5 AS BIGINT) folds to %s", e)
	}
	if e := must(Arith(Add, Column(0, "d", decimalType(5, 2)), lit(int64(1)))); e.String() != "d + 1" {
		t.Errorf("String() = %s", e)
	}
}
