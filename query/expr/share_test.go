package expr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestShareQ1: Q1's two revenue sums share ext * (1 - disc) (and 1 -
// disc inside it), the shared results equal the unshared ones, a memo hit
// hands out the array it kept, and nothing leaks.
func TestShareQ1(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	cols := []jcol{
		{"ext", dec, `["100.00", "2.50", null, "7.25"]`},
		{"disc", dec, `["0.05", "0.10", "0.00", null]`},
		{"tax", dec, `["0.08", "0.00", "0.02", "0.01"]`},
		{"other", dec, `["1.00", "1.00", "1.00", "1.00"]`},
	}
	rec := jbatch(t, mem, cols...)
	defer rec.Release()
	must := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	one := func() Expr { return must(Literal(int64(1))) }
	rev := func() Expr {
		return must(Arith(Mul, jexpr(cols, "ext"), must(Arith(Sub, one(), jexpr(cols, "disc")))))
	}
	exprs := []Expr{
		rev(),
		must(Arith(Mul, rev(), must(Arith(Add, one(), jexpr(cols, "tax"))))),
		must(Arith(Mul, jexpr(cols, "other"), must(Arith(Sub, one(), jexpr(cols, "disc"))))),
		jexpr(cols, "ext"),
	}
	shared := Share(exprs)
	s0, ok := shared[0].(*sharedExpr)
	if !ok {
		t.Fatalf("ext * (1 - disc) is not shared: %T", shared[0])
	}
	if got := shared[1].(*arithExpr).l; got != Expr(s0) {
		t.Errorf("the second sum's left operand is %T, not the shared product", got)
	}
	// 1 - disc occurs under both products and under other * (1 - disc).
	if _, ok := shared[2].(*arithExpr).r.(*sharedExpr); !ok {
		t.Errorf("1 - disc under other * … is not shared")
	}
	if shared[3] != exprs[3] {
		t.Errorf("a bare column was rewritten")
	}
	ctx, forget := WithMemo(context.Background())
	for i := range exprs {
		want, err := exprs[i].Eval(context.Background(), mem, rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := shared[i].Eval(ctx, mem, rec)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got, want) || shared[i].String() != exprs[i].String() {
			t.Errorf("%s: shared %v, unshared %v", exprs[i], got, want)
		}
		got.Release()
		want.Release()
	}
	again, _ := shared[0].Eval(ctx, mem, rec)
	first, _ := shared[0].Eval(ctx, mem, rec)
	if again != first {
		t.Errorf("the memo evaluated the shared product twice")
	}
	again.Release()
	first.Release()
	forget()
	// Without a memo, a shared node evaluates as the expression it is.
	a, err := shared[1].Eval(context.Background(), mem, rec)
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
}
