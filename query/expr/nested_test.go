package expr

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestNestedOperandsRefused: a list or struct reaches no constructor but
// nested.go's and IsNull; the others refuse it with ErrType, never a
// panic.
func TestNestedOperandsRefused(t *testing.T) {
	for _, typ := range []arrow.DataType{
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}),
	} {
		n := Column(0, "n", typ)
		one, _ := Literal(int64(1))
		for name, build := range map[string]func() (Expr, error){
			"compare":  func() (Expr, error) { return Compare(Eq, n, n) },
			"arith":    func() (Expr, error) { return Arith(Add, n, one) },
			"cast":     func() (Expr, error) { return Cast(n, typString) },
			"call":     func() (Expr, error) { return Call("length", n) },
			"in":       func() (Expr, error) { return In(n, []Expr{one}) },
			"between":  func() (Expr, error) { return Between(n, one, one) },
			"like":     func() (Expr, error) { return Like(n, "a%", false) },
			"negate":   func() (Expr, error) { return Negate(n) },
			"coalesce": func() (Expr, error) { return Coalesce(n, one) },
			"concat":   func() (Expr, error) { return Concat(n, one) },
		} {
			if e, err := build(); !errors.Is(err, ErrType) {
				t.Errorf("%s over %s: %v, %v; want ErrType", name, typ, e, err)
			}
		}
	}
}

// TestNestedSliced: the nested kernels read sliced arrays (non-zero
// offsets) of every list layout and of structs with NULLs, and free what
// they allocate.
func TestNestedSliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	for _, typ := range []arrow.DataType{
		arrow.ListOf(arrow.PrimitiveTypes.Int32),
		arrow.LargeListOf(arrow.PrimitiveTypes.Int32),
		arrow.ListViewOf(arrow.PrimitiveTypes.Int32),
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32),
	} {
		js := `[[9, 9], [1, null], null, [3, 4], [5, 6]]`
		a, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		s := array.NewSlice(a, 1, 5) // [1, null], null, [3, 4], [5, 6]
		batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: typ, Nullable: true}}, nil), []arrow.Array{s}, 4)
		l := Column(0, "l", typ)
		one, _ := Literal(int64(1))
		minus, _ := Literal(int64(-1))
		four, _ := Literal(int64(4))
		first, _ := ListElement(l, one)
		last, _ := ListElement(l, minus)
		length, _ := ListLength(l)
		has, _ := ListContains(l, four)
		for _, tc := range []struct {
			e    Expr
			want string
		}{
			{first, "[1 NULL 3 5]"},
			{last, "[NULL NULL 4 6]"},
			{length, "[2 NULL 2 2]"},
			{has, "[false NULL true false]"},
			{IsNull(l), "[false true false false]"},
		} {
			got, err := tc.e.Eval(ctx, mem, batch)
			if err != nil {
				t.Errorf("%s over %s: %v", tc.e, typ, err)
				continue
			}
			vals := make([]any, got.Len())
			for i := range vals {
				vals[i] = goValue(got, i)
			}
			if showAll(vals) != tc.want {
				t.Errorf("%s over %s = %s, want %s", tc.e, typ, showAll(vals), tc.want)
			}
			got.Release()
		}
		batch.Release()
		s.Release()
		a.Release()
	}
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int16, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	a, _, err := array.FromJSON(mem, st, strings.NewReader(`[{"a": 9, "b": "z"}, {"a": 1, "b": null}, null, {"a": null, "b": "y"}]`))
	if err != nil {
		t.Fatal(err)
	}
	s := array.NewSlice(a, 1, 4)
	batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: st, Nullable: true}}, nil), []arrow.Array{s}, 3)
	for field, want := range map[string]string{"a": "[1 NULL NULL]", "B": `[NULL NULL "y"]`} {
		e, err := StructField(Column(0, "s", st), field)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Eval(ctx, mem, batch)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, got.Len())
		for i := range vals {
			vals[i] = goValue(got, i)
		}
		if showAll(vals) != want || !arrow.TypeEqual(got.DataType(), e.Type()) {
			t.Errorf("%s = %s %s, want %s %s", e, got.DataType(), showAll(vals), e.Type(), want)
		}
		got.Release()
	}
	batch.Release()
	s.Release()
	a.Release()
}
