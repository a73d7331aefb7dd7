package query

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// aggregateOp is GROUP BY (or a global aggregate): it evaluates the key
// and argument expressions of each input batch, feeds them to a
// vectorized hash aggregator, and at the end of its input yields the
// groups: key columns, then one column per aggregate.
type aggregateOp struct {
	rt     *runtime
	in     operator
	n      *aggregateNode
	schema *arrow.Schema

	out     []arrow.RecordBatch
	started bool
	held    int64 // bytes accounted to rt.mt
	closed  bool
}

func (o *aggregateOp) Schema() *arrow.Schema { return o.schema }

func (o *aggregateOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !o.started {
		o.started = true
		var err error
		if o.n.countOnly() {
			o.out, err = o.countRows(ctx)
		} else {
			o.out, err = o.aggregate(ctx)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(o.out) == 0 {
		return nil, io.EOF
	}
	rec := o.out[0]
	o.out = o.out[1:]
	return rec, nil
}

// countRows answers a global aggregate of count(*) alone from the row
// counts of the input batches, which a count-only scan yields without
// decoding anything.
func (o *aggregateOp) countRows(ctx context.Context) ([]arrow.RecordBatch, error) {
	var rows int64
	if err := drain(ctx, o.in, func(rec arrow.RecordBatch) error {
		rows += rec.NumRows()
		return nil
	}); err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, len(o.n.aggs))
	for i := range cols {
		b := array.NewInt64Builder(o.rt.mem)
		b.Append(rows)
		cols[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(o.schema, cols, 1)
	releaseAll(cols)
	return []arrow.RecordBatch{rec}, nil
}

func (o *aggregateOp) aggregate(ctx context.Context) ([]arrow.RecordBatch, error) {
	n := o.n
	h, err := agg.NewHashAggregator(n.keyTypes(), n.argTypes(), n.specs(), agg.Options{Mem: o.rt.mem})
	if err != nil {
		return nil, err
	}
	defer h.Release()
	err = drain(ctx, o.in, func(rec arrow.RecordBatch) error {
		keys, err := evalAll(ctx, o.rt, n.keys, rec)
		if err != nil {
			return err
		}
		defer releaseAll(keys)
		args, err := evalAll(ctx, o.rt, n.args, rec)
		if err != nil {
			return err
		}
		defer releaseAll(args)
		if err := h.Add(keys, args); err != nil {
			return &Error{Kind: ErrExec, Msg: "aggregating", Err: err}
		}
		return o.account(h.MemoryUsage())
	})
	if err != nil {
		return nil, err
	}
	recs, err := h.Result(outputBatchRows)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: "aggregating", Err: err}
	}
	// The aggregator's result columns carry its own field names; give
	// them the plan's.
	for i, r := range recs {
		recs[i] = array.NewRecordBatch(o.schema, r.Columns(), r.NumRows())
		r.Release()
	}
	return recs, nil
}

// account keeps rt.mt at the aggregator's current memory use.
func (o *aggregateOp) account(now int64) error {
	if d := now - o.held; d > 0 {
		if err := o.rt.mt.grow(d, "GROUP BY"); err != nil {
			return err
		}
	} else {
		o.rt.mt.shrink(-d)
	}
	o.held = now
	return nil
}

func (o *aggregateOp) Close() {
	if o.closed {
		return
	}
	o.closed = true
	for _, r := range o.out {
		r.Release()
	}
	o.out = nil
	o.rt.mt.shrink(o.held)
	o.held = 0
	o.in.Close()
}

// evalAll evaluates exprs over rec.
func evalAll(ctx context.Context, rt *runtime, exprs []expr.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		var err error
		if out[i], err = e.Eval(ctx, rt.mem, rec); err != nil {
			releaseAll(out[:i])
			return nil, execError(err, e)
		}
	}
	return out, nil
}
