package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// must panics on a construction error: the tables below only build
// expressions that are valid.
func must(e Expr, err error) Expr {
	if err != nil {
		panic(err)
	}
	return e
}

func lit(v any) Expr { return must(Literal(v)) }

func dec(s string, p, sc int32) Expr {
	n, err := decimal128.FromString(s, p, sc)
	if err != nil {
		panic(err)
	}
	return DecimalLiteral(n, p, sc)
}

func date(s string) Expr { return DateLiteral(mustDate(s)) }

type exprCase struct {
	name  string
	build func() (Expr, error)
}

func ar(op ArithOp, l, r Expr) func() (Expr, error) {
	return func() (Expr, error) { return Arith(op, l, r) }
}

func cmp(op CmpOp, l, r Expr) func() (Expr, error) {
	return func() (Expr, error) { return Compare(op, l, r) }
}

func conformCases() []exprCase {
	var cs []exprCase
	add := func(name string, build func() (Expr, error)) {
		cs = append(cs, exprCase{name, build})
	}
	// arithmetic, every operator over every numeric pairing
	pairs := [][2]Expr{
		{col("i1"), col("i2")}, {col("i1"), col("i3")}, {col("i1"), lit(int64(7))},
		{lit(int64(1000)), col("i3")}, {col("f1"), col("f2")}, {col("f1"), col("i3")},
		{col("d1"), col("d2")}, {col("d1"), col("i3")}, {col("d2"), col("d1")},
		{col("d3"), col("d3")}, {col("d3"), col("d1")}, {col("d1"), lit(int64(1))},
		{lit(int64(1)), col("d1")}, {col("d1"), dec("0.05", 3, 2)}, {col("d2"), col("f2")},
		{col("i2"), NullLiteral(typNull)}, {col("d1"), NullLiteral(typInt64)},
	}
	for _, op := range []ArithOp{Add, Sub, Mul, Div, Mod} {
		for _, p := range pairs {
			add(fmt.Sprintf("%s %s %s", p[0], op, p[1]), ar(op, p[0], p[1]))
		}
	}
	add("a*b+c int", func() (Expr, error) {
		return Arith(Add, must(Arith(Mul, col("i1"), col("i2"))), col("i3"))
	})
	add("a*b+c dec", func() (Expr, error) {
		return Arith(Add, must(Arith(Mul, col("d1"), col("d2"))), col("d1"))
	})
	add("price*(1-disc)*(1+tax)", func() (Expr, error) {
		one := lit(int64(1))
		return Arith(Mul, must(Arith(Mul, col("d1"), must(Arith(Sub, one, col("d2"))))), must(Arith(Add, one, col("d2"))))
	})
	for _, e := range []Expr{col("i1"), col("f1"), col("d1"), col("d3")} {
		add("-"+e.String(), func() (Expr, error) { return Negate(e) })
	}

	// comparisons over every comparable pairing
	cpairs := [][2]Expr{
		{col("i1"), col("i2")}, {col("i1"), lit(int64(24))}, {col("f1"), col("f2")}, {col("f1"), col("i3")},
		{col("d1"), col("d2")}, {col("d1"), lit(int64(24))}, {col("d2"), dec("0.055", 4, 3)},
		{col("i2"), dec("2.5", 2, 1)}, {col("d1"), col("f2")}, {col("s1"), col("s2")}, {col("s1"), lit("abc")},
		{col("dt1"), col("dt2")}, {col("dt1"), lit("1998-12-01")}, {col("b1"), col("b2")},
		{col("d3"), col("d1")}, {col("i1"), NullLiteral(typNull)},
	}
	for _, op := range []CmpOp{Eq, Ne, Lt, Le, Gt, Ge} {
		for _, p := range cpairs {
			add(fmt.Sprintf("%s %s %s", p[0], op, p[1]), cmp(op, p[0], p[1]))
		}
	}

	// logic
	add("b1 AND b2", func() (Expr, error) { return And(col("b1"), col("b2")) })
	add("b1 OR b2", func() (Expr, error) { return Or(col("b1"), col("b2")) })
	add("NOT b1", func() (Expr, error) { return Not(col("b1")) })
	add("b1 AND NULL", func() (Expr, error) { return And(col("b1"), NullLiteral(typNull)) })
	add("b1 OR TRUE", func() (Expr, error) { return Or(col("b1"), lit(true)) })
	add("q1-ish filter", func() (Expr, error) {
		lt := must(Compare(Lt, col("i2"), lit(int64(24))))
		bt := must(Between(col("d2"), dec("0.05", 3, 2), dec("0.07", 3, 2)))
		return And(lt, bt)
	})
	for _, c := range []string{"i1", "f1", "d1", "s1", "dt1", "b1"} {
		add(c+" IS NULL", func() (Expr, error) { return IsNull(col(c)), nil })
		add(c+" IS NOT NULL", func() (Expr, error) { return IsNotNull(col(c)), nil })
	}

	// IN and BETWEEN
	add("i3 IN literals", func() (Expr, error) { return In(col("i3"), []Expr{lit(int64(1)), lit(int64(-2)), lit(int64(9))}) })
	add("i3 IN with NULL", func() (Expr, error) { return In(col("i3"), []Expr{lit(int64(1)), lit(nil)}) })
	add("i3 IN columns", func() (Expr, error) { return In(col("i3"), []Expr{col("i2"), lit(int64(0))}) })
	add("s1 IN strings", func() (Expr, error) { return In(col("s1"), []Expr{lit("abc"), lit(""), lit("é")}) })
	add("f2 IN floats", func() (Expr, error) { return In(col("f2"), []Expr{lit(0.0), lit(1.5), lit(int64(2))}) })
	add("d1 IN decimals", func() (Expr, error) { return In(col("d1"), []Expr{dec("0.00", 3, 2), lit(int64(5)), dec("1.5", 2, 1)}) })
	add("dt1 IN dates", func() (Expr, error) { return In(col("dt1"), []Expr{lit("2024-02-29"), date("2024-01-31")}) })
	add("i1 BETWEEN", func() (Expr, error) { return Between(col("i1"), lit(int64(-10)), col("i2")) })
	add("d2 BETWEEN", func() (Expr, error) { return Between(col("d2"), dec("-0.5", 2, 1), lit(int64(3))) })
	add("s1 BETWEEN", func() (Expr, error) { return Between(col("s1"), lit("a"), lit("b")) })
	add("f1 BETWEEN", func() (Expr, error) { return Between(col("f1"), col("f2"), lit(100.0)) })
	add("dt1 BETWEEN", func() (Expr, error) { return Between(col("dt1"), lit("1970-01-01"), date("2000-01-01")) })

	// LIKE
	for _, p := range []string{"%", "", "a%", "%c", "%b%", "a_c", "_", "__", "a%c%", `a\%c`, `a\_c`, `%\\%`, "é_", "_a%", "%a%b%"} {
		add("s1 LIKE "+p, func() (Expr, error) { return Like(col("s1"), p, false) })
		add("s1 NOT LIKE "+p, func() (Expr, error) { return Like(col("s1"), p, true) })
	}

	// casts
	for _, c := range []string{"i1", "f1", "d1", "d2", "d3", "s1", "dt1", "b1"} {
		for _, to := range []arrow.DataType{typInt64, typFloat64, decimalType(15, 2), decimalType(5, 1), decimalType(38, 0), typString, typDate32, typBool} {
			if !canCast(col(c).Type(), to) {
				continue
			}
			add(fmt.Sprintf("CAST(%s AS %s)", c, sqlType(to)), func() (Expr, error) { return Cast(col(c), to) })
		}
	}

	// CASE and COALESCE
	add("CASE guards division", func() (Expr, error) {
		return Case([]When{{must(Compare(Ne, col("i3"), lit(int64(0)))), must(Arith(Div, col("i1"), col("i3")))}}, lit(int64(-1)))
	})
	add("CASE two arms no else", func() (Expr, error) {
		return Case([]When{
			{col("b1"), col("d1")},
			{must(Compare(Gt, col("i2"), lit(int64(0)))), col("i2")},
		}, nil)
	})
	add("CASE strings", func() (Expr, error) {
		return Case([]When{{must(Like(col("s1"), "a%", false)), col("s1")}}, col("s2"))
	})
	add("CASE 1 ELSE 0", func() (Expr, error) {
		return Case([]When{{col("b2"), lit(int64(1))}}, lit(int64(0)))
	})
	add("CASE bool result", func() (Expr, error) {
		return Case([]When{{col("b1"), col("b2")}, {col("b2"), lit(nil)}}, lit(false))
	})
	add("CASE dates", func() (Expr, error) {
		return Case([]When{{col("b1"), col("dt1")}}, lit("2000-01-01"))
	})
	add("CASE mixed numeric", func() (Expr, error) {
		return Case([]When{{col("b1"), col("i1")}, {col("b2"), col("d2")}}, col("f2"))
	})
	add("CASE all NULL", func() (Expr, error) {
		return Case([]When{{col("b1"), lit(nil)}}, nil)
	})
	add("COALESCE ints", func() (Expr, error) { return Coalesce(col("i1"), col("i2"), lit(int64(0))) })
	add("COALESCE guarded", func() (Expr, error) {
		return Coalesce(col("i3"), must(Arith(Div, col("i1"), col("i3"))))
	})
	add("COALESCE strings", func() (Expr, error) { return Coalesce(col("s1"), col("s2")) })
	add("COALESCE decimals", func() (Expr, error) { return Coalesce(col("d1"), col("d2"), lit(int64(1))) })
	add("COALESCE one", func() (Expr, error) { return Coalesce(col("f1")) })

	// dates
	for _, iv := range [][2]int32{{1, 0}, {-1, 0}, {0, 90}, {0, -90}, {13, -1}, {-25, 10}, {120000, 0}} {
		add(fmt.Sprintf("dt1 + %d months %d days", iv[0], iv[1]), func() (Expr, error) { return AddInterval(col("dt1"), iv[0], iv[1]) })
	}
	for p := PartYear; p <= PartMicrosecond; p++ { // epoch is a DOUBLE: TestTimestampParts
		add(fmt.Sprintf("EXTRACT(%s FROM dt1)", p), func() (Expr, error) { return Extract(p, col("dt1")) })
	}
	add("year of interval", func() (Expr, error) { return Extract(PartYear, must(AddInterval(col("dt1"), 1, 0))) })

	// substring: literal and column windows, negative and huge ones
	i64 := func(v int64) Expr { return lit(v) }
	for _, w := range [][2]Expr{
		{i64(1), i64(2)}, {i64(2), i64(3)}, {i64(0), i64(2)}, {i64(0), i64(1)}, {i64(-2), i64(2)},
		{i64(-10), i64(8)}, {i64(3), i64(-2)}, {i64(-1), i64(-3)}, {i64(1), i64(0)},
		{i64(math.MaxInt64), i64(math.MaxInt64)}, {i64(math.MinInt64), i64(math.MinInt64)},
		{i64(2), i64(math.MinInt64)}, {i64(-3), i64(math.MaxInt64)},
		{col("i3"), col("i3")}, {col("i3"), i64(2)}, {col("i2"), col("i1")}, {i64(1), lit(nil)},
	} {
		add(fmt.Sprintf("substring(s1, %s, %s)", w[0], w[1]), func() (Expr, error) { return Substring(col("s1"), w[0], w[1]) })
	}
	for _, st := range []Expr{i64(1), i64(3), i64(0), i64(-2), col("i3"), col("i2"), i64(math.MinInt64)} {
		add(fmt.Sprintf("substring(s1, %s)", st), func() (Expr, error) { return Substring(col("s1"), st, nil) })
	}
	add("substring of a literal", func() (Expr, error) { return Substring(lit("héllo wörld"), col("i3"), col("i3")) })
	add("substring of CASE", func() (Expr, error) {
		return Substring(must(Case([]When{{col("b1"), col("s1")}}, col("s2"))), i64(2), col("i3"))
	})

	add("shipdate <= date - interval", func() (Expr, error) {
		return Compare(Le, col("dt1"), must(AddInterval(date("1998-12-01"), 0, -90)))
	})
	return cs
}

func TestConformance(t *testing.T) {
	for i, c := range conformCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, err := c.build()
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			checkAgainstRef(t, e, uint64(i))
		})
	}
}

// checkAgainstRef evaluates e over random batches and compares every row
// with ref; the allocator must be empty afterwards, errors included.
func checkAgainstRef(t *testing.T, e Expr, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	ctx := context.Background()
	sizes := []int{0, 1, 3, 17, 64, 200}
	trials := 40
	if testing.Short() {
		trials = 8
	}
	for trial := range trials {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		n := sizes[r.IntN(len(sizes))]
		offset := 0
		if r.IntN(2) == 0 {
			offset = r.IntN(13)
		}
		tb := genBatch(t, mem, r, n, offset)
		var refErrs []error
		errRow := ""
		want := make([]any, n)
		for i, row := range tb.rows {
			v, err := ref(e, row)
			if err != nil {
				if refErrs == nil {
					errRow = fmt.Sprintf(" at row %d %s", i, showRow(row))
				}
				refErrs = append(refErrs, err)
			}
			want[i] = v
		}
		got, err := e.Eval(ctx, mem, tb.rec)
		switch {
		case len(refErrs) > 0 && err == nil:
			t.Errorf("trial %d (%s): %s: no error, reference fails with %v%s", trial, tb.desc, e, refErrs[0], errRow)
		case len(refErrs) > 0:
			if !matchesAny(err, refErrs) {
				t.Errorf("trial %d (%s): %s: error %v, reference fails with %v", trial, tb.desc, e, err, refErrs)
			}
		case err != nil:
			t.Errorf("trial %d (%s): %s: %v", trial, tb.desc, e, err)
		default:
			checkArray(t, e, got, want, tb)
		}
		if got != nil {
			got.Release()
		}
		tb.rec.Release()
		mem.AssertSize(t, 0)
		if t.Failed() {
			return
		}
	}
}

func matchesAny(err error, kinds []error) bool {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

func checkArray(t *testing.T, e Expr, got arrow.Array, want []any, tb testBatch) {
	t.Helper()
	if got.Len() != len(want) {
		t.Errorf("%s: %d rows, want %d", e, got.Len(), len(want))
		return
	}
	if !arrow.TypeEqual(got.DataType(), e.Type()) {
		t.Errorf("%s: result type %s, Type() says %s", e, got.DataType(), e.Type())
		return
	}
	for i, w := range want {
		if g := goValue(got, i); !sameValue(w, g) {
			t.Errorf("%s (%s) row %d %s: got %s, want %s", e, tb.desc, i, showRow(tb.rows[i]), show(g), show(w))
			return
		}
	}
}

func showRow(row []any) string {
	s := "["
	for i, v := range row {
		if i > 0 {
			s += " "
		}
		s += testCols[i].name + "=" + show(v)
	}
	return s + "]"
}
