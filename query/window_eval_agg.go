package query

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
)

// generic computes c, an aggregate of package agg (plan_window_agg.go),
// with one hash aggregator keyed by a number per group of rows:
//
//   - over whole partitions, the partition's number in the block: the
//     aggregator takes the block's rows in order, so its groups come out
//     in partition order, and each row takes its partition's value;
//   - over a frame that moves with the row, each row's own frame: the
//     rows of the frames of a chunk of output rows are gathered (a row
//     once per frame it is in), keyed by the output row, so the groups
//     come out in row order. A frame is evaluated from scratch, so the
//     rows visited are the sum of the frames' sizes, which is refused
//     past maxFrameVisits a block; an empty frame is one row the
//     aggregate's filter leaves out, so it gives what the aggregate
//     gives over no rows.
//
// What the aggregator holds counts in the query's memory while it runs,
// and may not pass what the query has left.
func (w *winBlock) generic(ctx context.Context, c windowCall) (arrow.Array, error) {
	if !c.whole {
		return w.genericFrames(ctx, c)
	}
	parts := len(w.starts) - 1
	sel := make([]int32, w.n)
	keyVals := make([]int64, w.n)
	p := 0
	w.eachPartition(func(ps, pe int) {
		for i := ps; i < pe; i++ {
			keyVals[i], sel[i] = int64(p), int32(p)
		}
		p++
	})
	vals, err := w.aggregateGroups(ctx, c, keyVals, nil, nil, max(parts, 1))
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	out, err := take.Array(ctx, w.rt.mem, vals, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// maxFrameVisits bounds the rows a block's moving frames of an aggregate
// evaluated per frame visit (a variable for tests); frameChunkVisits is
// about how many one aggregator takes at a time.
var maxFrameVisits int64 = 1 << 28

const frameChunkVisits = 1 << 18

// genericFrames computes c over each row's moving frame.
func (w *winBlock) genericFrames(ctx context.Context, c windowCall) (arrow.Array, error) {
	pieces := make([][3]span, w.n)
	var visits int64
	w.eachPartition(func(ps, pe int) {
		for i := ps; i < pe; i++ {
			fs, fe := w.bounds(c.frame, i, ps, pe)
			pieces[i] = w.pieces(c.frame, i, fs, fe)
			for _, p := range pieces[i] {
				visits += int64(max(p.hi-p.lo, 0))
			}
		}
	})
	if visits > maxFrameVisits {
		return nil, &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("%s: its frames over %d rows hold %d rows in all, past the %d an aggregate evaluated frame by frame may visit (a smaller frame, or one that is the whole partition)",
			c.text, w.n, visits, maxFrameVisits)}
	}
	var outs []arrow.Array
	defer func() { releaseAll(outs) }()
	var keys []int64
	var idx []int32
	var keep []bool
	lo := 0
	for i := 0; i < w.n; i++ {
		empty := true
		for _, p := range pieces[i] {
			for j := p.lo; j < p.hi; j++ {
				keys, idx, keep = append(keys, int64(i-lo)), append(idx, int32(j)), append(keep, true)
				empty = false
			}
		}
		if empty { // a row the filter leaves out: the group exists, with no rows
			keys, idx, keep = append(keys, int64(i-lo)), append(idx, int32(i)), append(keep, false)
		}
		if len(idx) >= frameChunkVisits || i == w.n-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			vals, err := w.aggregateGroups(ctx, c, keys, idx, keep, i+1-lo)
			if err != nil {
				return nil, err
			}
			outs = append(outs, vals)
			keys, idx, keep, lo = keys[:0], idx[:0], keep[:0], i+1
		}
	}
	switch len(outs) {
	case 0:
		return array.MakeArrayOfNull(w.rt.mem, c.typ, 0), nil
	case 1:
		outs[0].Retain()
		return outs[0], nil
	}
	out, err := array.Concatenate(outs, w.rt.mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// aggregateGroups runs c's aggregate over the block's rows idx (nil: all
// of [0, n)) grouped by keys, numbered 0, 1, … in order of first
// appearance, and returns one value per group in that order; keep (nil:
// every row) leaves rows out of the aggregate but not their groups.
func (w *winBlock) aggregateGroups(ctx context.Context, c windowCall, keys []int64, idx []int32, keep []bool, groups int) (arrow.Array, error) {
	spec, cols, types, err := w.aggInputs(ctx, c, idx, keep, 0)
	defer func() { releaseAll(cols) }()
	if err != nil {
		return nil, err
	}
	kb := array.NewInt64Builder(w.rt.mem)
	kb.AppendValues(keys, nil)
	key := kb.NewArray()
	kb.Release()
	defer key.Release()

	// The aggregator may hold what the query has left of its limit.
	opts := agg.Options{Mem: w.rt.mem}
	m := w.rt.mt
	if m.limit > 0 {
		opts.MemoryLimit = max(m.limit-m.used.Load(), 1)
	}
	h, err := agg.NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64}, types, []agg.Spec{spec}, opts)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	defer h.Release()
	if err := h.Add([]arrow.Array{key}, cols); err != nil {
		if errors.Is(err, agg.ErrMemoryLimit) {
			return nil, &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s as a window function needs more than the %d bytes left of %s (%d bytes) for %d rows in %d groups%s",
				c.text, opts.MemoryLimit, m.names.limit, m.limit, len(keys), groups, m.advice()), Err: err}
		}
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	held := h.MemoryUsage()
	if err := w.rt.mt.grow(held, c.text+" as a window function"); err != nil {
		return nil, err
	}
	defer w.rt.mt.shrink(held)
	recs, err := h.Result(groups)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	vals := make([]arrow.Array, len(recs))
	for i, r := range recs {
		vals[i] = r.Column(1)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if len(vals) == 1 {
		vals[0].Retain()
		return vals[0], nil
	}
	out, err := array.Concatenate(vals, w.rt.mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// aggInputs are the columns c's aggregate reads over the block's rows idx
// (nil: all of [0, n)), and its spec pointing into them; keep (nil:
// every row) leaves rows out of the aggregate but not their groups. pos0
// is the position of the first row in the order given (first and
// any_value take the rows in that order). The caller releases cols, also
// on an error.
func (w *winBlock) aggInputs(ctx context.Context, c windowCall, idx []int32, keep []bool, pos0 int64) (spec agg.Spec, cols []arrow.Array, types []arrow.DataType, err error) {
	spec = c.spec
	add := func(a arrow.Array) int {
		cols = append(cols, a)
		types = append(types, a.DataType())
		return len(cols) - 1
	}
	use := func(i int) int {
		if idx == nil {
			return add(array.NewSlice(w.arg(i), 0, int64(w.n)))
		}
		a, terr := take.Array(ctx, w.rt.mem, w.arg(i), idx)
		if terr != nil {
			err = terr
			return add(array.MakeArrayOfNull(w.rt.mem, w.arg(i).DataType(), len(idx)))
		}
		return add(a)
	}
	if spec.Func != agg.CountStar {
		spec.Arg = use(spec.Arg)
	}
	switch {
	case spec.Func == agg.ArgMin || spec.Func == agg.ArgMax:
		spec.By = use(spec.By)
	case spec.By == byPosition: // first and any_value: the rows in the order given
		rows := len(idx)
		if idx == nil {
			rows = w.n
		}
		pb := array.NewInt64Builder(w.rt.mem)
		for i := range rows {
			pb.Append(pos0 + int64(i))
		}
		spec.By = add(pb.NewArray())
		pb.Release()
	}
	if spec.Filter > 0 {
		spec.Filter = use(spec.Filter-1) + 1
	}
	spec.Order = append([]agg.OrderKey(nil), spec.Order...)
	for i := range spec.Order {
		spec.Order[i].Arg = use(spec.Order[i].Arg)
	}
	if keep != nil {
		if spec.Filter > 0 { // and the aggregate's own filter
			f := cols[spec.Filter-1].(*array.Boolean)
			for i := range keep {
				keep[i] = keep[i] && f.IsValid(i) && f.Value(i)
			}
		}
		fb := array.NewBooleanBuilder(w.rt.mem)
		fb.AppendValues(keep, nil)
		spec.Filter = 1 + add(fb.NewArray())
		fb.Release()
	}
	if err != nil {
		return spec, cols, types, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	spec.Name = c.text
	return spec, cols, types, nil
}
