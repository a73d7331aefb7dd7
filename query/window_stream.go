package query

import (
	"bytes"
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/sortkey"
)

// A window partition larger than memory is streamed when every call of
// its window needs only the rows before it and a few after: row_number,
// rank, dense_rank, lag and lead with offsets up to maxStreamOffset, and
// count, sum, avg, min and max over frames from UNBOUNDED PRECEDING to
// CURRENT ROW (ROWS, RANGE or GROUPS, no EXCLUDE). Once the rows held of
// one partition pass half the memory limit (windowOp.hold), they are
// computed as a chunk, and what the chunk leaves for the rest of the
// partition is a winCarry: the number of rows and the rank so far, each
// aggregate's running count and sum or best value, and a copy of the last
// rows emitted (the context lag reads back into). The rows of a chunk
// that cannot be computed yet — the last lead-offset rows, and under a
// RANGE or GROUPS aggregate the peer group still open — are copied and
// held as the start of the next chunk. Every other call (ntile,
// percent_rank, cume_dist, the *_value functions, frames that reach
// ahead or drop rows, aggregates evaluated frame by frame) needs the
// whole partition, and past the limit fails with ErrMemory naming it.

// maxStreamOffset is the largest lag or lead offset a streamed partition
// takes: the rows it keeps to look back or ahead.
const maxStreamOffset = 1024

// winCarry is what the rows of a streamed partition emitted so far leave
// for the rest of it.
type winCarry struct {
	rows        int64 // rows of the partition emitted
	rank, dense int64 // the last emitted row's
	calls       []callCarry
	// ctx is a copy of the last rows emitted (at least one, up to the
	// largest lag offset), put before the next chunk: lag reads them,
	// and they tell whether the chunk's first row is a peer of the last.
	ctx arrow.RecordBatch
	// whole: what the first pass over a spilled partition learned
	// (window_spill.go); nil when streaming.
	whole *winWhole
}

// callCarry is one aggregate's running state.
type callCarry struct {
	count int64
	sum   decimal128.Num // integers and decimals
	fsum  float64
	best  arrow.Array // min, max: the best value so far (one row), nil: none
}

func (c *winCarry) release() {
	if c == nil {
		return
	}
	if c.ctx != nil {
		c.ctx.Release()
	}
	c.whole.release(nil) // its aggregators are done
	for _, cc := range c.calls {
		if cc.best != nil {
			cc.best.Release()
		}
	}
}

// streamable reports whether c, one of n's calls, can be computed over a
// partition that is streamed. Without ORDER BY a RANGE or GROUPS frame's
// CURRENT ROW is the whole partition.
func (n *windowNode) streamable(c windowCall) bool {
	switch c.kind {
	case winRowNumber, winRank, winDenseRank:
		return true
	case winLag, winLead:
		return c.n <= maxStreamOffset
	case winAggregate:
		f := c.frame
		return f.start.kind == boundUnboundedPreceding && f.end.kind == boundCurrent && f.exclude == excludeNoOthers &&
			(f.rows || len(n.order) > 0)
	}
	return false
}

// streamShape is what a window's calls need around a row: the rows
// before it (lag), after it (lead), and whether peer groups must be
// complete (an aggregate whose CURRENT ROW is its peers).
func (n *windowNode) streamShape(paths []winPath) (back, ahead int, peers bool) {
	back = 1
	for k, c := range n.calls {
		if paths[k] != pathStream { // a spilled partition's (window_spill_path.go)
			b, a, p := n.spillShape(c, paths[k])
			back, ahead, peers = max(back, b), max(ahead, a), peers || p
			continue
		}
		switch {
		case c.kind == winLag:
			back = max(back, int(c.n))
		case c.kind == winLead:
			ahead = max(ahead, int(c.n))
		case c.kind == winAggregate && !c.frame.rows:
			peers = true
		}
	}
	return back, ahead, peers
}

// streamFinal computes and emits the rows of block, the end of one
// streamed partition: streamChunk with nothing left pending.
func (o *windowOp) streamFinal(ctx context.Context, block arrow.RecordBatch) error {
	out, pending, err := o.streamChunk(ctx, block, true)
	if pending != nil {
		pending.Release()
	}
	if err != nil {
		return err
	}
	o.emit(out)
	return nil
}

// streamChunk computes the rows of block, the rest of one streamed
// partition (after o.carry's context rows at its start), that can be
// computed: all of them when final, the partition ending with them. It
// returns them with their window columns, and the rows it could not
// compute yet (copied; nil: none); o.carry is updated past the rows
// returned.
func (o *windowOp) streamChunk(ctx context.Context, block arrow.RecordBatch, final bool) (out, pending arrow.RecordBatch, err error) {
	carry := o.carry
	ctxRows := 0
	if carry.ctx != nil {
		ctxRows = int(carry.ctx.NumRows())
	}
	m := int(block.NumRows())
	w := &winBlock{rt: o.rt, block: block, n: m, starts: []int{0, m},
		argBase: o.width + len(o.n.partition) + len(o.n.order)}
	if err := w.peers(o.oEnc, block.Columns()[o.width+len(o.n.partition):w.argBase]); err != nil {
		return nil, nil, err
	}
	back, ahead, needPeers := o.n.streamShape(o.paths)
	end := m
	if !final {
		end = m - ahead
		if needPeers && m > 0 {
			end = min(end, int(w.peerStart[m-1]))
		}
		end = max(end, ctxRows)
	}
	cols := make([]arrow.Array, 0, o.schema.NumFields())
	defer func() { releaseAll(cols) }()
	for i := range o.width {
		cols = append(cols, array.NewSlice(block.Column(i), int64(ctxRows), int64(end)))
	}
	for k := range o.n.calls {
		a, err := o.streamCall(ctx, w, k, ctxRows, end)
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, a)
	}
	// The ranks of the last row emitted, then the rows so far.
	for i := ctxRows; i < end; i++ {
		if int(w.peerStart[i]) == i {
			carry.rank = carry.rows + int64(i-ctxRows) + 1
			carry.dense++
		}
	}
	carry.rows += int64(end - ctxRows)
	out = array.NewRecordBatch(o.schema, cols, int64(end-ctxRows))
	// The next chunk's context: the last rows emitted, copied.
	if end > 0 {
		lo := max(0, end-back)
		c, err := copyRows(o.rt, block, lo, end)
		if err != nil {
			out.Release()
			return nil, nil, err
		}
		if carry.ctx != nil {
			carry.ctx.Release()
		}
		carry.ctx = c
	}
	if end < m {
		if pending, err = copyRows(o.rt, block, end, m); err != nil {
			out.Release()
			return nil, nil, err
		}
	}
	return out, pending, nil
}

// copyRows copies rows [lo, hi) of rec, so that holding them does not
// hold rec's buffers.
func copyRows(rt *runtime, rec arrow.RecordBatch, lo, hi int) (arrow.RecordBatch, error) {
	s := rec.NewSlice(int64(lo), int64(hi))
	defer s.Release()
	return concatBatches(rt.mem, rec.Schema(), []arrow.RecordBatch{s}) // ddl_rebatch.go
}

// streamCall computes call k for rows [ctxRows, end) of w's one
// partition, continuing o.carry.
func (o *windowOp) streamCall(ctx context.Context, w *winBlock, k, ctxRows, end int) (arrow.Array, error) {
	if o.paths[k] != pathStream {
		return o.spillCall(ctx, w, k, ctxRows, end) // window_spill_calls.go
	}
	carry := o.carry
	c, cc := o.n.calls[k], &carry.calls[k]
	switch c.kind {
	case winRowNumber, winRank, winDenseRank:
		b := array.NewInt64Builder(o.rt.mem)
		defer b.Release()
		rank, dense := carry.rank, carry.dense
		for i := ctxRows; i < end; i++ {
			pos := carry.rows + int64(i-ctxRows) // in the partition, from 0
			if int(w.peerStart[i]) == i {
				rank, dense = pos+1, dense+1
			}
			switch c.kind {
			case winRowNumber:
				b.Append(pos + 1)
			case winRank:
				b.Append(rank)
			default:
				b.Append(dense)
			}
		}
		return b.NewArray(), nil
	case winLag, winLead:
		sel := make([]int32, w.n)
		for i := range sel {
			sel[i] = -1
		}
		for i := ctxRows; i < end; i++ {
			pos := carry.rows + int64(i-ctxRows)
			switch {
			case c.kind == winLag && c.n <= pos:
				sel[i] = int32(i - int(c.n))
			case c.kind == winLead && i+int(c.n) < w.n:
				sel[i] = int32(i + int(c.n))
			}
		}
		all, err := w.gather(ctx, c, sel)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		return array.NewSlice(all, int64(ctxRows), int64(end)), nil
	}
	if c.fn == agg.Min || c.fn == agg.Max {
		return o.streamBest(ctx, w, c, cc, ctxRows, end)
	}
	return o.streamSum(w, c, cc, ctxRows, end)
}

// streamSum computes a running count, sum or avg.
func (o *windowOp) streamSum(w *winBlock, c windowCall, cc *callCarry, ctxRows, end int) (arrow.Array, error) {
	var arg arrow.Array
	if c.fn != agg.CountStar {
		arg = w.arg(c.arg)
	}
	ints, _ := arg.(*array.Int64)
	decs, _ := arg.(*array.Decimal128)
	floats, _ := arg.(*array.Float64)
	scale := int32(0)
	if decs != nil {
		scale = decs.DataType().(*arrow.Decimal128Type).Scale
	}
	if arg != nil && ints == nil && decs == nil && floats == nil && c.fn != agg.Count {
		return nil, &Error{Kind: ErrUnsupported, Msg: c.text + " over " + arg.DataType().String()}
	}
	b := array.NewBuilder(o.rt.mem, c.typ)
	defer b.Release()
	next := ctxRows // rows [ctxRows, next) are in cc
	for i := ctxRows; i < end; i++ {
		upto := i + 1
		if !c.frame.rows {
			upto = int(w.peerEnd[i])
		}
		for ; next < upto; next++ {
			if arg != nil && arg.IsNull(next) {
				continue
			}
			cc.count++
			switch {
			case ints != nil:
				cc.sum = cc.sum.Add(decimal128.FromI64(ints.Value(next)))
			case decs != nil:
				cc.sum = cc.sum.Add(decs.Value(next))
			case floats != nil:
				cc.fsum += floats.Value(next)
			}
		}
		switch bb := b.(type) {
		case *array.Int64Builder:
			switch {
			case c.fn == agg.Count || c.fn == agg.CountStar:
				bb.Append(cc.count)
			case cc.count == 0:
				bb.AppendNull()
			case cc.sum.Greater(decimal128.FromI64(math.MaxInt64)) || cc.sum.Less(decimal128.FromI64(math.MinInt64)):
				return nil, &Error{Kind: ErrExec, Msg: c.text + ": the sum passes BIGINT (CAST the argument to DECIMAL)", Err: agg.ErrOverflow}
			default:
				bb.Append(int64(cc.sum.LowBits()))
			}
		case *array.Float64Builder:
			switch {
			case cc.count == 0:
				bb.AppendNull()
			case floats != nil && c.fn == agg.Avg:
				bb.Append(cc.fsum / float64(cc.count))
			case floats != nil:
				bb.Append(cc.fsum)
			default: // avg of integers and decimals
				bb.Append(cc.sum.ToFloat64(scale) / float64(cc.count))
			}
		case *array.Decimal128Builder:
			if cc.count == 0 {
				bb.AppendNull()
			} else {
				bb.Append(cc.sum)
			}
		}
	}
	return b.NewArray(), nil
}

// streamBest computes a running min or max: the best of the carried
// value and the rows so far, by their normalized keys.
func (o *windowOp) streamBest(ctx context.Context, w *winBlock, c windowCall, cc *callCarry, ctxRows, end int) (arrow.Array, error) {
	// src: the carried best (if any), the partition's rows, a NULL.
	parts := []arrow.Array{}
	if cc.best != nil {
		parts = append(parts, cc.best)
	}
	arg := array.NewSlice(w.arg(c.arg), 0, int64(w.n))
	defer arg.Release()
	null := array.MakeArrayOfNull(o.rt.mem, arg.DataType(), 1)
	defer null.Release()
	parts = append(parts, arg, null)
	src, err := array.Concatenate(parts, o.rt.mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	defer src.Release()
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: arg.DataType(), Desc: c.fn == agg.Max}})
	if err != nil {
		return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	var keys sortkey.Rows
	if err := enc.Encode(&keys, []arrow.Array{src}); err != nil {
		return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	shift := 0
	best := int32(int(src.Len()) - 1) // the NULL
	if cc.best != nil {
		shift, best = 1, 0
	}
	sel := make([]int32, 0, end-ctxRows)
	next := ctxRows
	for i := ctxRows; i < end; i++ {
		upto := i + 1
		if !c.frame.rows {
			upto = int(w.peerEnd[i])
		}
		for ; next < upto; next++ {
			j := next + shift
			if src.IsValid(j) && (src.IsNull(int(best)) || bytes.Compare(keys.Row(j), keys.Row(int(best))) < 0) {
				best = int32(j)
			}
		}
		sel = append(sel, best)
	}
	out, err := take.Array(ctx, o.rt.mem, src, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	if src.IsValid(int(best)) {
		nb, err := take.Array(ctx, o.rt.mem, src, []int32{best})
		if err != nil {
			out.Release()
			return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
		}
		if cc.best != nil {
			cc.best.Release()
		}
		cc.best = nb
	}
	return out, nil
}
