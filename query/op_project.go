package query

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/expr"
)

// projectOp computes one column per expression for each input batch.
type projectOp struct {
	rt     *runtime
	in     operator
	exprs  []expr.Expr
	schema *arrow.Schema
	// left is how many more rows a LIMIT above will take (negative: no
	// limit); batches are cut to it before they are computed.
	left int64
}

func (o *projectOp) Schema() *arrow.Schema { return o.schema }

func (o *projectOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := o.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	if o.left >= 0 && rec.NumRows() > o.left {
		cut := rec.NewSlice(0, o.left)
		rec.Release()
		rec = cut
	}
	defer rec.Release()
	if o.left >= 0 {
		o.left -= rec.NumRows()
	}
	return o.apply(ctx, rec)
}

// apply computes the projection of one batch (which it does not release).
func (o *projectOp) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	var err error
	mem := o.rt.evalMem()
	defer mem.close()
	cols := make([]arrow.Array, len(o.exprs))
	for i, e := range o.exprs {
		if cols[i], err = e.Eval(ctx, mem, rec); err != nil {
			releaseAll(cols[:i])
			return nil, execError(err, e)
		}
	}
	out := array.NewRecordBatch(o.schema, cols, rec.NumRows())
	releaseAll(cols)
	return out, nil
}

func (o *projectOp) Close() { o.in.Close() }
