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

// jcol is a test column given as Arrow JSON.
type jcol struct {
	name string
	typ  arrow.DataType
	json string
}

// jbatch builds a batch of JSON columns; every column must have n rows.
func jbatch(t testing.TB, mem memory.Allocator, cols ...jcol) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	n := int64(-1)
	for i, c := range cols {
		a, _, err := array.FromJSON(mem, c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatalf("column %s: %v", c.name, err)
		}
		if n >= 0 && int64(a.Len()) != n {
			t.Fatalf("column %s has %d rows, want %d", c.name, a.Len(), n)
		}
		n = int64(a.Len())
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
		arrs[i] = a
	}
	if n < 0 {
		n = 1
	}
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, n)
	for _, a := range arrs {
		a.Release()
	}
	return b
}

// jexpr is column i of cols as an expression.
func jexpr(cols []jcol, name string) Expr {
	for i, c := range cols {
		if c.name == name {
			return Column(i, c.name, c.typ)
		}
	}
	panic("no column " + name)
}

// evalValues evaluates e over cols and returns its rows as Go values, with
// a checked allocator that must end empty.
func evalValues(t testing.TB, e Expr, cols ...jcol) ([]any, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := jbatch(t, mem, cols...)
	defer b.Release()
	a, err := e.Eval(context.Background(), mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if !arrow.TypeEqual(a.DataType(), e.Type()) {
		t.Errorf("%s: result %s, Type() %s", e, a.DataType(), e.Type())
	}
	out := make([]any, a.Len())
	for i := range out {
		out[i] = goValue(a, i)
	}
	return out, nil
}

// evalOne evaluates a constant expression (one row, no columns).
func evalOne(t testing.TB, e Expr) (any, error) {
	t.Helper()
	vs, err := evalValues(t, e)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// wantErr checks err matches kind and mentions every one of texts.
func wantErr(t testing.TB, err, kind error, texts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want %v", kind)
		return
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q is not %v", err, kind)
	}
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// showAll renders values for comparisons in tests.
func showAll(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = show(v)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// evalText evaluates e over cols and renders each row: NULL, or the value
// as CAST(... AS VARCHAR) would write it (decimals with all their scale).
func evalText(t testing.TB, e Expr, cols ...jcol) ([]string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := jbatch(t, mem, cols...)
	defer b.Release()
	a, err := e.Eval(context.Background(), mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if !arrow.TypeEqual(a.DataType(), e.Type()) {
		t.Errorf("%s: result %s, Type() %s", e, a.DataType(), e.Type())
	}
	if a.DataType().ID() == arrow.NULL {
		return strings.Split(strings.Repeat("NULL ", a.Len()), " ")[:a.Len()], nil
	}
	s, err := castArray(context.Background(), mem, a, typString)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	out := make([]string, a.Len())
	for i := range out {
		if s.IsNull(i) {
			out[i] = "NULL"
		} else {
			out[i] = s.(*array.String).Value(i)
		}
	}
	return out, nil
}

// text1 is evalText of a constant expression.
func text1(t testing.TB, e Expr) (string, error) {
	t.Helper()
	s, err := evalText(t, e)
	if err != nil {
		return "", err
	}
	return s[0], nil
}
