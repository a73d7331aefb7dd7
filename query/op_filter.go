package query

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/expr"
)

// filterOp keeps the rows where its predicate is TRUE (not FALSE, not
// NULL), batch by batch; a batch with no row left is not passed on. Of the
// columns it keeps those at positions keep (nil: all), and gathers only
// those.
type filterOp struct {
	rt     *runtime
	in     operator
	pred   expr.Expr
	conj   []*filterTerm // pred's AND-ed terms, evaluated one by one (op_filter_conj.go); nil: not an AND
	keep   []int
	schema *arrow.Schema
}

func (o *filterOp) Schema() *arrow.Schema { return o.schema }

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
	if o.conj != nil {
		return o.applyConjuncts(ctx, rec)
	}
	mem := o.rt.evalMem()
	mask, err := o.pred.Eval(ctx, mem, rec)
	mem.close() // the mask is released below; the gathered rows are not the predicate's
	if err != nil {
		return nil, execError(err, o.pred)
	}
	defer mask.Release()
	b, ok := mask.(*array.Boolean)
	if !ok && mask.DataType().ID() != arrow.NULL { // NULL: WHERE NULL, no row passes
		return nil, fmt.Errorf("query: filter %s evaluated to %s, not boolean", o.pred, mask.DataType())
	}
	rec = o.narrow(rec)
	defer rec.Release()
	if !ok {
		return rec.NewSlice(0, 0), nil
	}
	// Take the selected rows (internal/take), not with arrow-go's filter
	// kernel: v18.8's drops the values of Boolean columns that hold NULLs
	// (it returned [false, null, null…] for [false, true, false, true,
	// null…]).
	sel := take.Selection(make([]int32, 0, b.Len()), b)
	switch len(sel) {
	case 0:
		return rec.NewSlice(0, 0), nil // dropped by Next; nothing copied
	case int(rec.NumRows()):
		rec.Retain()
		return rec, nil
	}
	return take.Record(ctx, o.rt.mem, rec, sel)
}

// narrow returns rec (retained) with only the columns the filter keeps.
func (o *filterOp) narrow(rec arrow.RecordBatch) arrow.RecordBatch {
	if o.keep == nil {
		rec.Retain()
		return rec
	}
	cols := make([]arrow.Array, len(o.keep))
	for i, p := range o.keep {
		cols[i] = rec.Column(p)
	}
	return array.NewRecordBatch(o.schema, cols, rec.NumRows())
}

func (o *filterOp) Close() { o.in.Close() }

// execError wraps a run-time failure of an expression.
func execError(err error, e expr.Expr) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	// Both texts quote the expression, which may hold megabytes of SQL.
	var xe *expr.Error
	if errors.As(err, &xe) && len(xe.Msg) > maxMsg {
		err = &expr.Error{Kind: xe.Kind, Msg: clip(xe.Msg)}
	}
	return &Error{Kind: ErrExec, Msg: clip("evaluating " + e.String()), Err: err}
}
