package query

import (
	"context"
	"io"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

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

	out   []arrow.RecordBatch
	spill *aggSpill // with Options.Spill (op_aggspill.go)
	// exchange is what the hash exchange moved (op_aggexchange.go).
	exchange *exchangeStats
	started  bool
	held     int64 // bytes accounted to rt.mt
	closed   bool
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
	if o.spill != nil && (o.spill.reader != nil || o.spill.hs != nil && o.spill.hs.red != nil) {
		return o.nextSpilled(ctx)
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
	// Options.Exchange (for tests and benchmarks) when nothing spills; the
	// planner's choice (plan_exchange.go) whenever it made it.
	if (o.rt.exchange && o.rt.spill == nil || n.exchange) && len(n.keys) > 0 && n.serial() == "" {
		return o.aggregateExchange(ctx) // op_aggexchange.go
	}
	newAgg := func() (*agg.HashAggregator, error) {
		return agg.NewHashAggregator(n.keyTypes(), n.argTypes(), n.specs(), o.aggOptions())
	}
	src, steps := pipeline(o.in)
	workers := max(o.rt.workers, 1)
	if n.serial() != "" {
		// string_agg and the quantiles see the rows in input order on
		// one aggregator: they have no partial state to merge
		// (agg.Serial).
		workers = 1
	}
	aggs := make([]*agg.HashAggregator, workers)
	defer func() {
		for _, h := range aggs {
			if h != nil {
				h.Release()
			}
		}
	}()
	for i := range aggs {
		var err error
		if aggs[i], err = newAgg(); err != nil {
			return nil, err
		}
	}
	if err := o.startSpill(aggs[0]); err != nil {
		return nil, err
	}
	// Each worker pulls the next batch of the source (the scan, whose
	// decoding is parallel already) under a lock, then runs the filters
	// and projections between it and the aggregate and its own hash
	// aggregator on it; the workers' partial aggregates are merged at
	// the end. One worker is the plain serial loop.
	var mu sync.Mutex
	var batches int64 // pulled from src, under mu
	g, gctx := errgroup.WithContext(ctx)
	for w := range workers {
		h := aggs[w]
		g.Go(func() error {
			var held int64
			defer func() { o.rt.mt.shrink(held) }()
			for {
				if err := gctx.Err(); err != nil {
					return err
				}
				mu.Lock()
				rec, err := src.Next(gctx)
				seq := batches // the batch's place in the input, for first and last
				batches++
				mu.Unlock()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				if rec, err = applySteps(gctx, steps, rec); err != nil {
					return err
				}
				err = o.add(gctx, h, rec, seq)
				rec.Release()
				if err != nil {
					return err
				}
				if now := h.MemoryUsage(); now > held {
					if err := o.trackTable(now - held); err != nil {
						return err
					}
					held = now
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	h := aggs[0]
	if o.spilled() {
		return nil, o.finishSpill(ctx, aggs)
	}
	for _, other := range aggs[1:] {
		parts, err := other.Partial(outputBatchRows)
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: "aggregating", Err: err}
		}
		for _, p := range parts {
			if err == nil {
				err = ctx.Err() // merging many groups takes a while
			}
			if err == nil {
				err = o.mergeSpilling(ctx, h, p)
			}
			p.Release()
		}
		if err != nil {
			return nil, wrapExec(err, "aggregating")
		}
	}
	if o.spilled() {
		return nil, o.finishSpill(ctx, aggs[:1])
	}
	if err := o.account(h.MemoryUsage()); err != nil {
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

// add evaluates the keys and arguments of one batch into h; seq is the
// batch's place in the input.
func (o *aggregateOp) add(ctx context.Context, h *agg.HashAggregator, rec arrow.RecordBatch, seq int64) error {
	keys, err := evalAll(ctx, o.rt, o.n.keys, rec)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	// Shared subexpressions (expr.Share) are computed once per batch.
	mctx, forget := expr.WithMemo(ctx)
	args, err := evalAll(mctx, o.rt, o.n.args, rec)
	forget()
	if err != nil {
		return err
	}
	if o.n.positions {
		args = append(args, rowPositions(o.rt, seq, int(rec.NumRows())))
	}
	defer releaseAll(args)
	if len(keys) == 0 && len(args) == 0 {
		err = h.AddRows(int(rec.NumRows()))
	} else if hs := o.hashSpill(); hs != nil {
		// Spilling through the shuffle: the rows of partitions no longer
		// kept in the tables go to disk as they are (op_aggshuffle.go).
		if k := hs.kept.Load(); k != nil {
			if err = decodeDictKeys(ctx, o.rt.mem, keys); err != nil {
				return wrapExec(err, "aggregating")
			}
			err = hs.route(ctx, h, *k, int(rec.NumRows()), keys, args)
		} else {
			hs.counted(h, int(rec.NumRows()))
			err = o.addSpilling(ctx, h, int(rec.NumRows()), keys, args)
		}
	} else {
		err = o.addSpilling(ctx, h, int(rec.NumRows()), keys, args)
	}
	if err != nil {
		return wrapExec(err, "aggregating")
	}
	return nil
}

// step is a per-batch operator (filter, project, convert) that a worker
// can run.
type step interface {
	apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error)
}

// pipeline peels the per-batch operators off op: it returns the operator
// below them and the steps, innermost first.
func pipeline(op operator) (operator, []step) {
	var steps []step
	for {
		s, in, ok := peel(op)
		if !ok {
			slices.Reverse(steps)
			return op, steps
		}
		steps = append(steps, s)
		op = in
	}
}

// peel splits a per-batch operator into the step it runs and its input.
func peel(op operator) (step, operator, bool) {
	switch x := op.(type) {
	case *filterOp:
		return x, x.in, true
	case *projectOp:
		return x, x.in, true
	case *convertOp:
		return x, x.in, true
	case *analyzeOp: // EXPLAIN ANALYZE's wrapper
		return x.peel()
	}
	return nil, op, false
}

// applySteps runs steps over rec, which it releases; it returns the
// result (possibly of no rows).
func applySteps(ctx context.Context, steps []step, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	for _, s := range steps {
		out, err := s.apply(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		rec = out
	}
	return rec, nil
}

// account keeps rt.mt at the aggregator's current memory use.
func (o *aggregateOp) account(now int64) error {
	if d := now - o.held; d > 0 {
		if err := o.rt.mt.grow(d, o.memWhat()); err != nil {
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
	o.closeSpill()
	o.rt.mt.shrink(o.held)
	o.held = 0
	o.in.Close()
}

// evalAll evaluates exprs over rec.
func evalAll(ctx context.Context, rt *runtime, exprs []expr.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	mem := rt.evalMem()
	defer mem.close()
	out := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		var err error
		if out[i], err = e.Eval(ctx, mem, rec); err != nil {
			releaseAll(out[:i])
			return nil, execError(err, e)
		}
	}
	return out, nil
}

// rowPositions numbers a batch's rows for first and last: seq<<32 + the
// row, so that the aggregators agree on which of two rows came first
// whichever worker took them and however their states merge or spill.
func rowPositions(rt *runtime, seq int64, n int) arrow.Array {
	b := array.NewInt64Builder(rt.mem)
	defer b.Release()
	b.Reserve(n)
	for r := range n {
		b.UnsafeAppend(seq<<32 | int64(r))
	}
	return b.NewArray()
}
