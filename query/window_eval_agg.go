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

// generic computes c, an aggregate of package agg over each row's whole
// partition (plan_window_agg.go): one hash aggregator keyed by the
// partition's number in the block takes the block's rows in order, so
// its groups come out in partition order, and each row takes its
// partition's value. What the aggregator holds counts in the query's
// memory while it runs, and may not pass what the query has left.
func (w *winBlock) generic(ctx context.Context, c windowCall) (arrow.Array, error) {
	spec := c.spec
	var cols []arrow.Array
	var types []arrow.DataType
	defer func() { releaseAll(cols) }()
	use := func(i int) int {
		a := array.NewSlice(w.arg(i), 0, int64(w.n))
		cols = append(cols, a)
		types = append(types, a.DataType())
		return len(cols) - 1
	}
	if spec.Func != agg.CountStar {
		spec.Arg = use(spec.Arg)
	}
	if spec.Func == agg.ArgMin || spec.Func == agg.ArgMax {
		spec.By = use(spec.By)
	}
	spec.Order = append([]agg.OrderKey(nil), spec.Order...)
	for i := range spec.Order {
		spec.Order[i].Arg = use(spec.Order[i].Arg)
	}
	spec.Name = c.text
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
	kb := array.NewInt64Builder(w.rt.mem)
	kb.AppendValues(keyVals, nil)
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
			return nil, &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s as a window function needs more than the %d bytes left of %s (%d bytes) for %d rows in %d partitions%s",
				c.text, opts.MemoryLimit, m.names.limit, m.limit, w.n, parts, m.advice()), Err: err}
		}
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	held := h.MemoryUsage()
	if err := w.rt.mt.grow(held, c.text+" as a window function"); err != nil {
		return nil, err
	}
	defer w.rt.mt.shrink(held)
	recs, err := h.Result(max(parts, 1))
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	vals := recs[0].Column(1)
	out, err := take.Array(ctx, w.rt.mem, vals, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}
