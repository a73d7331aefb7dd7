package query

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/expr"
)

// A WHERE of several conjuncts (a AND b AND c) is evaluated one conjunct
// at a time: each on the rows the ones before it left, gathered into a
// smaller batch once at most half the rows remain, so an expensive
// conjunct after a selective one reads a few rows instead of every row
// (the string-function benchmark's lower(l_comment) LIKE … keeps 2% of
// lineitem; the two conjuncts after it then cost almost nothing).
//
// The order adapts, as DuckDB's adaptive filters do: each conjunct's
// time per row and the share of rows it keeps are measured as batches
// pass, and the conjuncts run in increasing order of time per row dropped
// (t / (1 - pass), the order that minimizes the expected cost of
// independent filters). Until a conjunct has been measured it keeps its
// written place. A row is kept when every conjunct is TRUE for it, in any
// order; what can differ is an error a conjunct would raise on a row
// another conjunct drops (CAST('x' AS INT) = 1 AND false), which then
// does not surface. PostgreSQL and DuckDB give no order either.

// filterTerm is one AND-ed term of a filter and what was measured of it.
type filterTerm struct {
	e     expr.Expr
	nanos atomic.Int64 // time spent evaluating it
	in    atomic.Int64 // rows it was evaluated on
	kept  atomic.Int64 // of those, rows TRUE that were still wanted
}

// splitConjuncts returns the terms of a left-deep AND chain; nil when e
// is not an AND.
func splitConjuncts(e expr.Expr) []*filterTerm {
	x := expr.Inspect(e)
	if x.Kind != expr.KindAnd {
		return nil
	}
	var out []*filterTerm
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		if x := expr.Inspect(e); x.Kind == expr.KindAnd {
			for _, a := range x.Args {
				walk(a)
			}
			return
		}
		out = append(out, &filterTerm{e: e})
	}
	walk(e)
	return out
}

// rank orders conjuncts: measured ones by time per row dropped, the
// others after them in written order.
func (c *filterTerm) rank() float64 {
	in := c.in.Load()
	if in < 1024 {
		return -1
	}
	perRow := float64(c.nanos.Load()) / float64(in)
	drop := 1 - float64(c.kept.Load())/float64(in)
	return perRow / max(drop, 1e-3)
}

// orderConjuncts returns the terms in the order to evaluate them: conj
// itself until every term has been measured.
func orderConjuncts(conj []*filterTerm) []*filterTerm {
	type ranked struct {
		t    *filterTerm
		rank float64
	}
	rs := make([]ranked, len(conj))
	for i, c := range conj {
		if rs[i] = (ranked{c, c.rank()}); rs[i].rank < 0 {
			return conj
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	out := make([]*filterTerm, len(rs))
	for i, r := range rs {
		out[i] = r.t
	}
	return out
}

// applyConjuncts is filterOp.apply for a predicate of several conjuncts.
// The rows still in after each are a mask (take.Mask) over cur, ANDed
// with each conjunct's result while more than half of cur's rows remain;
// past that, cur is gathered down to them.
func (o *filterOp) applyConjuncts(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cur := rec
	cur.Retain()
	defer func() { cur.Release() }()
	var keep *take.Mask // the rows of cur still in; nil: all
	kept := int(cur.NumRows())
	for i, c := range orderConjuncts(o.conj) {
		if err := ctx.Err(); err != nil { // a WHERE of thousands of terms stops between them
			return nil, err
		}
		n := int(cur.NumRows())
		start := time.Now()
		mem := o.rt.evalMem()
		mask, err := c.e.Eval(ctx, mem, cur)
		mem.close()
		if err != nil {
			return nil, execError(err, c.e)
		}
		b, ok := mask.(*array.Boolean)
		if !ok {
			mask.Release()
			if mask.DataType().ID() == arrow.NULL { // NULL: no row passes
				return o.noRows(cur), nil
			}
			return nil, &Error{Kind: ErrExec, Msg: "filter " + c.e.String() + " evaluated to " + mask.DataType().String() + ", not boolean"}
		}
		in := kept
		if keep == nil {
			keep = take.NewMask(b)
		} else {
			keep.And(b)
		}
		mask.Release()
		kept = keep.Count()
		c.nanos.Add(int64(time.Since(start)))
		c.in.Add(int64(in))
		c.kept.Add(int64(kept))
		if kept == 0 {
			return o.noRows(cur), nil
		}
		if i < len(o.conj)-1 && kept <= n/2 {
			taken, err := take.Record(ctx, o.rt.mem, cur, keep.Selection(make([]int32, 0, kept)))
			if err != nil {
				return nil, err
			}
			cur.Release()
			cur, keep = taken, nil
		}
	}
	out := o.narrow(cur)
	if keep == nil || kept == int(out.NumRows()) {
		return out, nil
	}
	defer out.Release()
	return take.Record(ctx, o.rt.mem, out, keep.Selection(make([]int32, 0, kept)))
}

// noRows is the filter's empty batch (Next drops it), in its schema.
func (o *filterOp) noRows(rec arrow.RecordBatch) arrow.RecordBatch {
	out := o.narrow(rec)
	defer out.Release()
	return out.NewSlice(0, 0)
}
