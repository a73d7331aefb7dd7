package expr

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// lineitem's columns, as TPC-H types them.
var (
	lQuantity      = Column(4, "l_quantity", decimalType(15, 2))
	lExtendedPrice = Column(5, "l_extendedprice", decimalType(15, 2))
	lDiscount      = Column(6, "l_discount", decimalType(15, 2))
	lTax           = Column(7, "l_tax", decimalType(15, 2))
	lReturnFlag    = Column(8, "l_returnflag", typString)
	lShipDate      = Column(10, "l_shipdate", typDate32)
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(And(must(Compare(Lt, lQuantity, lit(int64(24)))), must(Between(lDiscount, dec("0.05", 3, 2), dec("0.07", 3, 2))))),
			"(l_quantity < 24) AND (l_discount BETWEEN 0.05 AND 0.07)"},
		{must(Arith(Mul, must(Arith(Mul, lExtendedPrice, must(Arith(Sub, lit(int64(1)), lDiscount)))), must(Arith(Add, lit(int64(1)), lTax)))),
			"(l_extendedprice * (1 - l_discount)) * (1 + l_tax)"},
		{must(Compare(Le, lShipDate, must(AddInterval(date("1998-12-01"), 0, -90)))), "l_shipdate <= DATE '1998-09-02'"},
		{must(AddInterval(lShipDate, 1, 0)), "l_shipdate + INTERVAL '1 month'"},
		{must(In(lReturnFlag, []Expr{lit("A"), lit("R")})), "l_returnflag IN ('A', 'R')"},
		{must(Not(must(Like(lReturnFlag, "A%", false)))), "NOT (l_returnflag LIKE 'A%')"},
		{IsNotNull(must(Arith(Add, lQuantity, lTax))), "(l_quantity + l_tax) IS NOT NULL"},
		{must(Cast(lQuantity, typInt64)), "CAST(l_quantity AS BIGINT)"},
		{must(Compare(Gt, lQuantity, lit(0.5))), "CAST(l_quantity AS DOUBLE) > 0.5"},
		{must(Coalesce(lReturnFlag, lit("x"))), "COALESCE(l_returnflag, 'x')"},
		{must(Negate(lQuantity)), "-l_quantity"},
		{must(Negate(must(Arith(Add, lQuantity, lTax)))), "-(l_quantity + l_tax)"},
		{must(Negate(lit(int64(5)))), "-5"},
		{lit(nil), "NULL"},
		{lit(true), "TRUE"},
		{lit(1.5), "1.5"},
		{dec("-0.05", 3, 2), "-0.05"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestInspect(t *testing.T) {
	q6 := must(And(
		must(Compare(Ge, lShipDate, lit("1994-01-01"))),
		must(Compare(Lt, lQuantity, lit(int64(24))))))
	n := Inspect(q6)
	if n.Kind != KindAnd || len(n.Args) != 2 {
		t.Fatalf("Inspect(%s) = %+v", q6, n)
	}
	c := Inspect(n.Args[0])
	if c.Kind != KindCompare || c.CmpOp != Ge {
		t.Fatalf("Inspect(%s) = %+v", n.Args[0], c)
	}
	if col := Inspect(c.Args[0]); col.Kind != KindColumn || col.Column != 10 || col.Name != "l_shipdate" {
		t.Errorf("column: %+v", col)
	}
	if l := Inspect(c.Args[1]); l.Kind != KindLiteral || l.Value != mustDate("1994-01-01") {
		t.Errorf("literal: %+v", l)
	}
	q := Inspect(Inspect(n.Args[1]).Args[1])
	if q.Value != decimal128.FromI64(2400) || n.Args[1].(*compareExpr).r.Type().String() != "decimal(15, 2)" {
		t.Errorf("24 next to decimal(15,2): %+v", q)
	}
	if got := fmt.Sprint(Columns(q6)); got != "[4 10]" {
		t.Errorf("Columns = %s", got)
	}
	like := Inspect(must(Like(lReturnFlag, "A%", true)))
	if like.Kind != KindLike || like.Pattern != "A%" || !like.Negated {
		t.Errorf("like: %+v", like)
	}
	cast := Inspect(must(Compare(Gt, lQuantity, lit(0.5)))).Args[0]
	if n := Inspect(cast); n.Kind != KindCast || !n.Implicit {
		t.Errorf("implicit cast: %+v", n)
	}
	iv := Inspect(must(AddInterval(lShipDate, 2, -3)))
	if iv.Kind != KindAddInterval || iv.Months != 2 || iv.Days != -3 {
		t.Errorf("interval: %+v", iv)
	}
}

// foreign is an Expr from outside the package.
type foreign struct{}

func (foreign) Type() arrow.DataType { return typInt64 }
func (foreign) String() string       { return "foreign()" }
func (foreign) Eval(_ context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return array.MakeArrayOfNull(mem, typInt64, int(b.NumRows())+1), nil // one row too many
}

// liar says Int64 and returns Booleans.
type liar struct{ foreign }

func (liar) Eval(_ context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return array.MakeArrayOfNull(mem, typBool, int(b.NumRows())), nil
}

func TestBadInputs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := jbatch(t, mem, jcol{"x", typInt64, `[1, 2]`})
	defer b.Release()
	ctx := context.Background()
	for _, tc := range []struct {
		e    Expr
		kind error
		text string
	}{
		{Column(3, "y", typInt64), ErrInvalid, "index 3"},
		{Column(-1, "y", typInt64), ErrInvalid, "index -1"},
		{Column(0, "x", typFloat64), ErrInvalid, "is int64, expected float64"},
		{must(Arith(Add, foreign{}, lit(int64(1)))), ErrInvalid, "returned 3 rows"},
		{must(Case([]When{{lit(true), foreign{}}}, nil)), ErrInvalid, "returned 3 rows"},
		{IsNull(nil), ErrInvalid, "nil"},
		{must(Arith(Mul, liar{}, lit(int64(2)))), ErrInvalid, "returned bool, but its type is int64"},
		{must(Coalesce(liar{}, lit(int64(2)))), ErrInvalid, "returned bool"},
		{must(Cast(liar{}, typString)), ErrInvalid, "returned bool"},
		{must(In(liar{}, []Expr{col("i1")})), ErrInvalid, "returned bool"},
	} {
		a, err := tc.e.Eval(ctx, mem, b)
		if err == nil {
			a.Release()
		}
		wantErr(t, err, tc.kind, tc.text)
	}
	_, err := Arith(Add, nil, lit(int64(1)))
	wantErr(t, err, ErrType, "nil")
	_, err = Literal(struct{}{})
	wantErr(t, err, ErrType)
	_, err = Cast(lit(int64(1)), arrow.PrimitiveTypes.Int32)
	wantErr(t, err, ErrType)
}

// TestNilOperands: every constructor refuses nil instead of panicking.
func TestNilOperands(t *testing.T) {
	x := lit(int64(1))
	for i, f := range []func() (Expr, error){
		func() (Expr, error) { return Arith(Add, nil, x) },
		func() (Expr, error) { return Compare(Eq, x, nil) },
		func() (Expr, error) { return And(nil, lit(true)) },
		func() (Expr, error) { return Not(nil) },
		func() (Expr, error) { return In(nil, []Expr{x}) },
		func() (Expr, error) { return In(x, []Expr{nil}) },
		func() (Expr, error) { return Between(x, nil, x) },
		func() (Expr, error) { return Like(nil, "a", false) },
		func() (Expr, error) { return Cast(nil, typInt64) },
		func() (Expr, error) { return Case([]When{{nil, x}}, nil) },
		func() (Expr, error) { return Case([]When{{lit(true), nil}}, nil) },
		func() (Expr, error) { return Coalesce(x, nil) },
		func() (Expr, error) { return Negate(nil) },
		func() (Expr, error) { return AddInterval(nil, 1, 0) },
	} {
		if _, err := f(); !errors.Is(err, ErrType) {
			t.Errorf("case %d: %v, want ErrType", i, err)
		}
	}
}

// TestConcurrentEval evaluates shared expressions from several goroutines
// (run with -race).
func TestConcurrentEval(t *testing.T) {
	es := []Expr{
		must(In(col("s1"), []Expr{lit("abc"), lit("a")})),
		must(In(col("d1"), []Expr{dec("0.00", 3, 2), lit(int64(5))})),
		must(Compare(Lt, col("d1"), lit(int64(24)))),
		must(Arith(Mul, col("d1"), must(Arith(Sub, lit(int64(1)), col("d2"))))),
		must(Case([]When{{col("b1"), lit(int64(1))}}, lit(int64(0)))),
		must(Like(col("s1"), "a%", false)),
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 20 {
				tb := genBatch(t, mem, r, 100, r.IntN(5))
				for _, e := range es {
					if a, err := e.Eval(context.Background(), mem, tb.rec); err == nil {
						a.Release()
					}
				}
				tb.rec.Release()
			}
			mem.AssertSize(t, 0)
		}()
	}
	wg.Wait()
}
