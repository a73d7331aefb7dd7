package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// operand is an evaluated argument of a kernel: an array of n rows, or a
// literal standing for n equal rows (so `x < 24` never builds an array of
// 24s).
type operand struct {
	arr arrow.Array // nil when lit is set
	lit *literal
	n   int
}

// evalOperand evaluates e over batch; literals are not materialized.
func evalOperand(ctx context.Context, mem memory.Allocator, e Expr, batch arrow.RecordBatch) (operand, error) {
	n := int(batch.NumRows())
	if l, ok := e.(*literal); ok {
		return operand{lit: l, n: n}, nil
	}
	if err := ctx.Err(); err != nil { // a deep tree over a large batch takes a while
		return operand{}, err
	}
	a, err := e.Eval(ctx, mem, batch)
	if err != nil {
		return operand{}, err
	}
	if err := checkResult(e, a, n); err != nil {
		a.Release()
		return operand{}, err
	}
	return operand{arr: a, n: n}, nil
}

// evalArray evaluates e over batch, checking what it returns.
func evalArray(ctx context.Context, mem memory.Allocator, e Expr, batch arrow.RecordBatch) (arrow.Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := e.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	if err := checkResult(e, a, int(batch.NumRows())); err != nil {
		a.Release()
		return nil, err
	}
	return a, nil
}

// checkResult fails unless a, what e returned, has n rows of e's type (an
// Expr from outside the package could break either promise).
func checkResult(e Expr, a arrow.Array, n int) error {
	if got := a.Len(); got != n {
		return errorf(ErrInvalid, "%s returned %d rows for a batch of %d", e, got, n)
	}
	if !arrow.TypeEqual(a.DataType(), e.Type()) && a.DataType().ID() != arrow.NULL {
		return errorf(ErrInvalid, "%s returned %s, but its type is %s", e, a.DataType(), e.Type())
	}
	return nil
}

// evalOperands evaluates each of es; on error everything evaluated so far
// is released.
func evalOperands(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, es ...Expr) ([]operand, error) {
	ops := make([]operand, 0, len(es))
	for _, e := range es {
		o, err := evalOperand(ctx, mem, e, batch)
		if err != nil {
			releaseAll(ops)
			return nil, err
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func releaseAll(ops []operand) {
	for _, o := range ops {
		o.release()
	}
}

func (o operand) release() {
	if o.arr != nil {
		o.arr.Release()
	}
}

// allNull reports whether every row is NULL.
func (o operand) allNull() bool {
	if o.lit != nil {
		return o.lit.null
	}
	return o.arr.NullN() == o.arr.Len()
}

// noNulls reports whether no row is NULL.
func (o operand) noNulls() bool {
	if o.lit != nil {
		return !o.lit.null
	}
	return o.arr.NullN() == 0
}

// datum wraps o for arrow-go's compute functions, without taking a
// reference.
func (o operand) datum() compute.Datum {
	if o.arr != nil {
		return compute.NewDatumWithoutOwning(o.arr)
	}
	return compute.NewDatumWithoutOwning(o.lit.scalar())
}

// callFunction runs the arrow-go compute function name over args and
// returns its result as an array of n rows.
func callFunction(ctx context.Context, mem memory.Allocator, name string, opts compute.FunctionOptions, n int, args ...operand) (arrow.Array, error) {
	ds := make([]compute.Datum, len(args))
	for i, a := range args {
		ds[i] = a.datum()
	}
	res, err := compute.CallFunction(compute.WithAllocator(ctx, mem), name, opts, ds...)
	if err != nil {
		return nil, err
	}
	return datumArray(mem, res, n)
}

// datumArray turns a compute result into an array of n rows and releases
// the datum.
func datumArray(mem memory.Allocator, d compute.Datum, n int) (arrow.Array, error) {
	defer d.Release()
	switch v := d.(type) {
	case *compute.ArrayDatum:
		return v.MakeArray(), nil
	case *compute.ScalarDatum:
		return scalar.MakeArrayFromScalar(v.Value, n, mem)
	}
	return nil, errorf(ErrInvalid, "unexpected compute result %s", d.Kind())
}

// nullArray is an all-NULL array of typ.
func nullArray(mem memory.Allocator, typ arrow.DataType, n int) arrow.Array {
	if typ.ID() == arrow.NULL {
		return array.NewNull(n)
	}
	return array.MakeArrayOfNull(mem, typ, n)
}
