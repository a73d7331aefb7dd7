package query

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/expr"
)

// filterOp keeps the rows where its predicate is TRUE (not FALSE, not
// NULL), batch by batch; a batch with no row left is not passed on.
type filterOp struct {
	rt   *runtime
	in   operator
	pred expr.Expr
}

func (o *filterOp) Schema() *arrow.Schema { return o.in.Schema() }

func (o *filterOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		rec, err := o.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		out, err := o.apply(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
		out.Release()
	}
}

func (o *filterOp) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	mask, err := o.pred.Eval(ctx, o.rt.mem, rec)
	if err != nil {
		return nil, execError(err, o.pred)
	}
	defer mask.Release()
	b, ok := mask.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("query: filter %s evaluated to %s, not boolean", o.pred, mask.DataType())
	}
	if b.NullN() == 0 && b.Len() > 0 && allTrue(b) {
		rec.Retain()
		return rec, nil
	}
	// Gather the selected rows with take: arrow-go v18.8's filter kernel
	// drops the values of Boolean columns that hold NULLs (it returned
	// [false, null, null…] for [false, true, false, true, null…]).
	sel := make([]int32, 0, b.Len())
	for i := range b.Len() {
		if b.IsValid(i) && b.Value(i) {
			sel = append(sel, int32(i))
		}
	}
	return takeRecord(ctx, o.rt.mem, rec, sel)
}

// allTrue reports whether every value of a null-free boolean array is set.
func allTrue(b *array.Boolean) bool {
	for i := range b.Len() {
		if !b.Value(i) {
			return false
		}
	}
	return true
}

func (o *filterOp) Close() { o.in.Close() }

// execError wraps a run-time failure of an expression.
func execError(err error, e expr.Expr) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Kind: ErrExec, Msg: "evaluating " + e.String(), Err: err}
}
