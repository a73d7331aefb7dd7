package query

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
)

// The calls of a spilled partition (window_spill.go): what the first pass
// learns of the whole partition (wholeAdd), and what the second computes
// from it chunk by chunk (spillCall), by each call's winPath.

// winWhole is what the first pass over a spilled partition learned.
type winWhole struct {
	rows  int64 // the partition's
	calls []wholeCall
}

// wholeCall is one call's whole-partition state (pathPrefix, pathTotal).
type wholeCall struct {
	count int64          // non-NULL values (rows, for count(*))
	sum   decimal128.Num // integers and decimals
	fsum  float64
	best  callCarry // min, max: the best so far (streamBest)
	// one is the value every row takes (min, max, first_value …, an
	// aggregate of package agg), one row; nil: NULL.
	one    arrow.Array
	h      *agg.HashAggregator // an aggregate of package agg, while the pass runs
	held   int64               // h's memory, charged
	suffix suffixState         // pathSuffix (window_spill_suffix.go)
}

func (wh *winWhole) release(mt *memTracker) {
	if wh == nil {
		return
	}
	for i := range wh.calls {
		wc := &wh.calls[i]
		wc.suffix.release()
		if wc.best.best != nil {
			wc.best.best.Release()
			wc.best.best = nil
		}
		if wc.one != nil {
			wc.one.Release()
			wc.one = nil
		}
		if wc.h != nil {
			wc.h.Release()
			wc.h = nil
			mt.shrink(wc.held)
			wc.held = 0
		}
	}
}

// wholeAdd takes rec, the partition's next rows, into wh.
func (o *windowOp) wholeAdd(ctx context.Context, wh *winWhole, rec arrow.RecordBatch) error {
	m := int(rec.NumRows())
	w := &winBlock{rt: o.rt, block: rec, n: m, starts: []int{0, m}, argBase: o.argBase()}
	for k, c := range o.n.calls {
		p := o.paths[k]
		if p != pathPrefix && p != pathTotal && p != pathSuffix && p != pathEdge {
			continue
		}
		wc := &wh.calls[k]
		var err error
		switch {
		case p == pathSuffix:
			err = o.suffixAdd(ctx, w, c, &wc.suffix) // window_spill_suffix.go
		case c.kind == winGeneric:
			err = o.wholeGeneric(ctx, w, c, wc, wh.rows)
		case c.kind != winAggregate:
			err = o.wholeValue(ctx, w, c, wc, wh.rows)
		case c.fn == agg.Min || c.fn == agg.Max:
			rc := c
			rc.frame.rows = true // every row of rec in turn
			var a arrow.Array
			if a, err = o.streamBest(ctx, w, rc, &wc.best, 0, m); a != nil {
				a.Release()
			}
		default:
			wholeSum(w, c, wc)
		}
		if err != nil {
			return err
		}
	}
	wh.rows += int64(m)
	return nil
}

// wholeSum adds the block's values to a count, sum or avg.
func wholeSum(w *winBlock, c windowCall, wc *wholeCall) {
	if c.fn == agg.CountStar {
		wc.count += int64(w.n)
		return
	}
	arg := w.arg(c.arg)
	wc.count += int64(w.n - arg.NullN())
	switch a := arg.(type) {
	case *array.Int64:
		for i := range w.n {
			if a.IsValid(i) {
				wc.sum = wc.sum.Add(decimal128.FromI64(a.Value(i)))
			}
		}
	case *array.Decimal128:
		for i := range w.n {
			if a.IsValid(i) {
				wc.sum = wc.sum.Add(a.Value(i))
			}
		}
	case *array.Float64:
		for i := range w.n { // in row order, as the in-memory running sum adds
			if a.IsValid(i) {
				wc.fsum += a.Value(i)
			}
		}
	}
}

// wholeValue keeps the row first_value, last_value or nth_value take
// over the whole partition, when it is in w (whose first row is at base).
func (o *windowOp) wholeValue(ctx context.Context, w *winBlock, c windowCall, wc *wholeCall, base int64) error {
	j := int64(-1)
	switch c.kind {
	case winFirstValue:
		j = 0
	case winNthValue:
		j = c.n - 1
	}
	if c.kind == winLastValue {
		j = base + int64(w.n) - 1
	}
	if j < base || j >= base+int64(w.n) {
		return nil
	}
	one, err := take.Array(ctx, o.rt.mem, w.arg(c.arg), []int32{int32(j - base)})
	if err != nil {
		return &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	if wc.one != nil {
		wc.one.Release()
	}
	wc.one = one
	return nil
}

// wholeGeneric adds w's rows to an aggregate of package agg over the
// whole partition: one hash aggregator with one group, what it holds
// charged to the query (an aggregate that keeps its values, such as
// median or string_agg, holds them all).
func (o *windowOp) wholeGeneric(ctx context.Context, w *winBlock, c windowCall, wc *wholeCall, base int64) error {
	spec, cols, types, err := w.aggInputs(ctx, c, nil, nil, base)
	defer func() { releaseAll(cols) }()
	if err != nil {
		return err
	}
	mt := o.rt.mt
	if wc.h == nil {
		opts := agg.Options{Mem: o.rt.mem}
		if mt.limit > 0 {
			// A share of the limit: what the sort below and the
			// window hold may reach the limit already.
			opts.MemoryLimit = max(mt.limit/4, 64<<10)
		}
		if wc.h, err = agg.NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64}, types, []agg.Spec{spec}, opts); err != nil {
			return &Error{Kind: ErrExec, Msg: c.text, Err: err}
		}
	}
	kb := array.NewInt64Builder(o.rt.mem)
	kb.AppendValues(make([]int64, min(w.n, wholeGenericRows)), nil) // one group
	key := kb.NewArray()
	kb.Release()
	defer key.Release()
	for lo := 0; lo < w.n; lo += wholeGenericRows {
		if err := o.addGeneric(c, wc, key, cols, lo, min(lo+wholeGenericRows, w.n)); err != nil {
			return err
		}
	}
	return nil
}

// wholeGenericRows is the most rows an aggregator over a spilled
// partition takes at once: its scratch grows with a batch's rows.
const wholeGenericRows = 1024

// addGeneric adds rows [lo, hi) of cols to wc's aggregator.
func (o *windowOp) addGeneric(c windowCall, wc *wholeCall, key arrow.Array, cols []arrow.Array, lo, hi int) error {
	mt := o.rt.mt
	k := array.NewSlice(key, 0, int64(hi-lo))
	defer k.Release()
	part := sliceAll(cols, lo, hi)
	defer releaseAll(part)
	if err := wc.h.Add([]arrow.Array{k}, part); err != nil {
		if errors.Is(err, agg.ErrMemoryLimit) {
			return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s as a window function over a spilled partition holds more than %s (%d bytes) allows%s",
				c.text, mt.names.limit, mt.limit, mt.advice()), Err: err}
		}
		return &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	now := wc.h.MemoryUsage()
	sortBudget{mt}.Grow(now - wc.held) // bounded by the aggregator's own limit
	wc.held = now
	return nil
}

// wholeFinish turns wh's aggregators into their values.
func (wh *winWhole) finish(o *windowOp) error {
	for k := range wh.calls {
		wc := &wh.calls[k]
		if o.paths[k] == pathSuffix {
			if err := o.suffixFinish(o.n.calls[k], &wc.suffix); err != nil {
				return err
			}
			continue
		}
		if b := wc.best.best; b != nil {
			wc.one, wc.best.best = b, nil
		}
		if wc.h == nil {
			continue
		}
		recs, err := wc.h.Result(1)
		if err != nil {
			return &Error{Kind: ErrExec, Msg: o.n.calls[k].text, Err: err}
		}
		wc.one = recs[0].Column(1)
		wc.one.Retain()
		for _, r := range recs {
			r.Release()
		}
		wc.h.Release()
		wc.h = nil
		o.rt.mt.shrink(wc.held)
		wc.held = 0
	}
	return nil
}

// spillCall computes call k for rows [ctxRows, end) of w, a chunk of a
// spilled partition's second pass (after o.carry's context rows).
func (o *windowOp) spillCall(ctx context.Context, w *winBlock, k, ctxRows, end int) (arrow.Array, error) {
	c := o.n.calls[k]
	switch o.paths[k] {
	case pathRank:
		return o.spillRank(w, c, ctxRows, end), nil
	case pathPrefix:
		return o.spillPrefix(w, k, ctxRows, end)
	case pathTotal:
		return o.spillTotal(ctx, k, end-ctxRows)
	case pathSuffix:
		return o.spillSuffix(ctx, w, k, ctxRows, end, o.replay.read) // window_spill_suffix.go
	case pathEdge:
		return o.spillEdge(ctx, w, k, ctxRows, end)
	}
	// pathBlock: the context rows and the rows after end hold every
	// frame of rows [ctxRows, end) (spillShape), or the partition's ends.
	a, err := w.call(ctx, c)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return array.NewSlice(a, int64(ctxRows), int64(end)), nil
}

// spillRank computes ntile, percent_rank and cume_dist from the rows
// and rank so far and the partition's row count.
func (o *windowOp) spillRank(w *winBlock, c windowCall, ctxRows, end int) arrow.Array {
	carry := o.carry
	size := carry.whole.rows
	rank := carry.rank
	var ints []int64
	var floats []float64
	for i := ctxRows; i < end; i++ {
		pos := carry.rows + int64(i-ctxRows)
		if int(w.peerStart[i]) == i {
			rank = pos + 1
		}
		switch {
		case c.kind == winNtile:
			ints = append(ints, ntileOf(pos, size, c.n))
		case c.kind == winPercentRank && size > 1:
			floats = append(floats, float64(rank-1)/float64(size-1))
		case c.kind == winPercentRank:
			floats = append(floats, 0)
		case len(o.n.order) == 0: // cume_dist: every row is a peer
			floats = append(floats, 1)
		default: // cume_dist: the peers are whole in w (spillShape)
			floats = append(floats, float64(carry.rows+int64(int(w.peerEnd[i])-ctxRows))/float64(size))
		}
	}
	if c.kind == winNtile {
		b := array.NewInt64Builder(o.rt.mem)
		defer b.Release()
		b.AppendValues(ints, nil)
		return b.NewArray()
	}
	b := array.NewFloat64Builder(o.rt.mem)
	defer b.Release()
	b.AppendValues(floats, nil)
	return b.NewArray()
}

// ntileOf is ntile(n)'s bucket of the row at r (from 0) of size rows:
// the first size%n buckets have one row more (PostgreSQL's and DuckDB's
// rule).
func ntileOf(r, size, n int64) int64 {
	q, rem := size/n, size%n
	big := rem * (q + 1)
	if r < big {
		return r/(q+1) + 1
	}
	return (r-big)/q + rem + 1
}

// spillPrefix computes count, sum or avg (pathPrefix) as the total up
// to the frame's end less the total before its start: prefixes over w
// anchored at the carried one (the rows emitted so far), 0 at the
// partition's start and the first pass's total at its end.
func (o *windowOp) spillPrefix(w *winBlock, k, ctxRows, end int) (arrow.Array, error) {
	c := o.n.calls[k]
	carry := o.carry
	cc, tot, size := &carry.calls[k], &carry.whole.calls[k], carry.whole.rows
	var arg arrow.Array
	if c.fn != agg.CountStar {
		arg = w.arg(c.arg)
	}
	ints, _ := arg.(*array.Int64)
	decs, _ := arg.(*array.Decimal128)
	scale := int32(0)
	if decs != nil {
		scale = decs.DataType().(*arrow.Decimal128Type).Scale
	}
	m := w.n
	cnt := make([]int64, m+1)
	sum := make([]decimal128.Num, m+1)
	val := func(j int) (int64, decimal128.Num) {
		switch {
		case arg != nil && arg.IsNull(j):
			return 0, decimal128.Num{}
		case ints != nil:
			return 1, decimal128.FromI64(ints.Value(j))
		case decs != nil:
			return 1, decs.Value(j)
		}
		return 1, decimal128.Num{}
	}
	cnt[ctxRows], sum[ctxRows] = cc.count, cc.sum
	for j := ctxRows; j < m; j++ {
		n, s := val(j)
		cnt[j+1], sum[j+1] = cnt[j]+n, sum[j].Add(s)
	}
	for j := ctxRows - 1; j >= 0; j-- {
		n, s := val(j)
		cnt[j], sum[j] = cnt[j+1]-n, sum[j+1].Sub(s)
	}
	base := carry.rows - int64(ctxRows) // the partition position of w's row 0
	pre := func(x int64) (int64, decimal128.Num) {
		switch {
		case x <= 0:
			return 0, decimal128.Num{}
		case x >= size:
			return tot.count, tot.sum
		}
		j := x - base
		if j < 0 || j > int64(m) {
			panic(fmt.Sprintf("query: window prefix at %d outside the chunk's rows [%d, %d]", x, base, base+int64(m)))
		}
		return cnt[j], sum[j]
	}
	b := array.NewBuilder(o.rt.mem, c.typ)
	defer b.Release()
	for i := ctxRows; i < end; i++ {
		fs, fe := o.frameAt(w, c.frame, i, base, size)
		n0, s0 := pre(fs)
		n1, s1 := pre(fe)
		if err := appendSum(b, c, n1-n0, s1.Sub(s0), 0, false, scale); err != nil {
			return nil, err
		}
	}
	cc.count, cc.sum = cnt[end], sum[end]
	return b.NewArray(), nil
}

// frameAt is row i of w's frame f as partition positions [fs, fe), w's
// row 0 at base, in a partition of size rows; bounds are UNBOUNDED,
// CURRENT ROW, or ROWS offsets (prefixFrame), and a RANGE or GROUPS
// CURRENT ROW's peers are whole in w.
func (o *windowOp) frameAt(w *winBlock, f frame, i int, base, size int64) (fs, fe int64) {
	bound := func(b frameBound, isEnd bool) int64 {
		g := base + int64(i)
		at := int64(0)
		if isEnd {
			at = 1
		}
		switch b.kind {
		case boundUnboundedPreceding:
			return 0
		case boundUnboundedFollowing:
			return size
		case boundCurrent:
			switch {
			case f.rows:
				return g + at
			case len(o.n.order) == 0:
				return at * size
			case isEnd:
				return base + int64(w.peerEnd[i])
			}
			return base + int64(w.peerStart[i])
		case boundPreceding:
			return min(max(g-b.n+at, 0), size)
		}
		return min(max(g+b.n+at, 0), size)
	}
	fs, fe = bound(f.start, false), bound(f.end, true)
	return fs, max(fs, fe)
}

// spillEdge computes first_value, nth_value or last_value (pathEdge):
// the row the first pass kept, on the rows whose frame holds it.
func (o *windowOp) spillEdge(ctx context.Context, w *winBlock, k, ctxRows, end int) (arrow.Array, error) {
	c := o.n.calls[k]
	carry := o.carry
	size := carry.whole.rows
	base := carry.rows - int64(ctxRows)
	pos := int64(0) // the row taken
	switch c.kind {
	case winNthValue:
		pos = c.n - 1
	case winLastValue:
		pos = size - 1
	}
	one := carry.whole.calls[k].one
	if one == nil { // nth_value past the partition
		return array.MakeArrayOfNull(o.rt.mem, c.typ, end-ctxRows), nil
	}
	null := array.MakeArrayOfNull(o.rt.mem, c.typ, 1)
	defer null.Release()
	src, err := array.Concatenate([]arrow.Array{one, null}, o.rt.mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	defer src.Release()
	sel := make([]int32, 0, end-ctxRows)
	for i := ctxRows; i < end; i++ {
		fs, fe := o.frameAt(w, c.frame, i, base, size)
		if fs <= pos && pos < fe {
			sel = append(sel, 0)
		} else {
			sel = append(sel, 1)
		}
	}
	out, err := take.Array(ctx, o.rt.mem, src, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// spillTotal computes a call over the whole partition (pathTotal): its
// value from the first pass, on each of rows rows.
func (o *windowOp) spillTotal(ctx context.Context, k, rows int) (arrow.Array, error) {
	c := o.n.calls[k]
	wc := &o.carry.whole.calls[k]
	if c.kind == winAggregate && c.fn != agg.Min && c.fn != agg.Max {
		var floats bool
		scale := int32(0)
		if c.fn != agg.CountStar {
			switch t := o.n.args[c.arg].Type().(type) {
			case *arrow.Float64Type:
				floats = true
			case *arrow.Decimal128Type:
				scale = t.Scale
			case *arrow.Int64Type:
			default:
				if c.fn != agg.Count {
					return nil, &Error{Kind: ErrUnsupported, Msg: c.text + " over " + t.String()}
				}
			}
		}
		b := array.NewBuilder(o.rt.mem, c.typ)
		defer b.Release()
		b.Reserve(rows)
		for range rows {
			if err := appendSum(b, c, wc.count, wc.sum, wc.fsum, floats, scale); err != nil {
				return nil, err
			}
		}
		return b.NewArray(), nil
	}
	if wc.one == nil {
		return array.MakeArrayOfNull(o.rt.mem, c.typ, rows), nil
	}
	out, err := take.Array(ctx, o.rt.mem, wc.one, make([]int32, rows))
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// appendSum appends count, sum or avg of cnt values summing to s
// (integers and decimals) or fs (floats, when floats), as window_eval.go's
// aggregate does.
func appendSum(b array.Builder, c windowCall, cnt int64, s decimal128.Num, fs float64, floats bool, scale int32) error {
	switch bb := b.(type) {
	case *array.Int64Builder:
		switch {
		case c.fn == agg.Count || c.fn == agg.CountStar:
			bb.Append(cnt)
		case cnt == 0:
			bb.AppendNull()
		case s.Greater(decimal128.FromI64(math.MaxInt64)) || s.Less(decimal128.FromI64(math.MinInt64)):
			return &Error{Kind: ErrExec, Msg: c.text + ": the sum passes BIGINT (CAST the argument to DECIMAL)", Err: agg.ErrOverflow}
		default:
			bb.Append(int64(s.LowBits()))
		}
	case *array.Float64Builder:
		switch {
		case cnt == 0:
			bb.AppendNull()
		case floats && c.fn == agg.Avg:
			bb.Append(fs / float64(cnt))
		case floats:
			bb.Append(fs)
		default: // avg of integers and decimals
			bb.Append(s.ToFloat64(scale) / float64(cnt))
		}
	case *array.Decimal128Builder:
		if cnt == 0 {
			bb.AppendNull()
		} else {
			bb.Append(s)
		}
	default:
		panic(fmt.Sprintf("query: window %s of type %s", c.text, c.typ))
	}
	return nil
}
