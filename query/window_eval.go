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

// winBlock is one block of sorted rows whose window calls are computed:
// rows [0, n) in the partitions [starts[k], starts[k+1]).
//
// Every frame's ends only move forward from row to row of a partition
// (ROWS offsets are constants, RANGE's CURRENT ROW is the last of the
// row's peers, a RANGE offset's bound grows with the key), so no frame
// is computed from scratch: count, sum and avg
// subtract prefix sums (exact for integers and decimals, which sum in 128
// bits), a float sum runs when the frame starts at the partition and
// otherwise asks a segment tree (subtracting float prefixes would lose
// precision), and min and max keep a monotone queue of the frame's
// candidates. Calls that return a row's value (lag, lead, first_value,
// last_value, nth_value, min, max) pick a row per output row and gather
// the values with internal/take.
type winBlock struct {
	rt      *runtime
	block   arrow.RecordBatch
	n       int
	starts  []int // partition starts, then n
	argBase int   // the block's column of argument 0

	// peerStart[i], peerEnd[i]: the rows with i's ORDER BY keys are
	// [peerStart[i], peerEnd[i]); every row of the partition without ORDER BY.
	peerStart, peerEnd []int32
	// group[i]: the number of i's peer group in the block (groups are
	// numbered across partitions, none spans two); groupStart[g]: its first row.
	group, groupStart []int32

	order      arrow.Array       // the first ORDER BY key (nil: none)
	orderField sortkey.SortField // its type and order
	// rangeStart, rangeEnd: the call being computed's frame ends of a
	// RANGE offset bound, per row (nil: none).
	rangeStart, rangeEnd []int32
}

// rangeOffsets computes the ends of c's RANGE offset bounds: the first
// row whose key reaches the start bound's value, and the first past the
// end bound's, found by walking forward (both only grow along a
// partition). Keys and bounds compare as normalized keys in the ORDER BY's
// direction and NULL placement, so DESC and NULLs need nothing else: a
// NULL key's bound is NULL, and its frame is its peers.
func (w *winBlock) rangeOffsets(c windowCall) error {
	w.rangeStart, w.rangeEnd = nil, nil
	offset := func(b frameBound) bool { return b.kind == boundPreceding || b.kind == boundFollowing }
	if c.frame.rows || c.frame.groups || !offset(c.frame.start) && !offset(c.frame.end) {
		return nil
	}
	enc, err := sortkey.NewEncoder([]sortkey.SortField{w.orderField})
	if err != nil {
		return &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	var keys sortkey.Rows
	if err := enc.Encode(&keys, []arrow.Array{w.order}); err != nil {
		return &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	walk := func(b frameBound, past bool) ([]int32, error) {
		if !offset(b) {
			return nil, nil
		}
		var bounds sortkey.Rows
		if err := enc.Encode(&bounds, []arrow.Array{w.arg(b.arg)}); err != nil {
			return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
		}
		out := make([]int32, w.n)
		w.eachPartition(func(ps, pe int) {
			j := ps
			for i := ps; i < pe; i++ {
				for j < pe {
					cmp := bytes.Compare(keys.Row(j), bounds.Row(i))
					if cmp > 0 || (cmp == 0 && !past) {
						break
					}
					j++
				}
				out[i] = int32(j)
			}
		})
		return out, nil
	}
	if w.rangeStart, err = walk(c.frame.start, false); err != nil {
		return err
	}
	w.rangeEnd, err = walk(c.frame.end, true)
	return err
}

// peers finds each row's peers by its encoded ORDER BY keys.
func (w *winBlock) peers(enc *sortkey.Encoder, order []arrow.Array) error {
	w.peerStart = make([]int32, w.n)
	w.peerEnd = make([]int32, w.n)
	w.group = make([]int32, w.n)
	w.groupStart = w.groupStart[:0]
	var rows sortkey.Rows
	if enc != nil {
		if err := enc.Encode(&rows, order); err != nil {
			return err
		}
	}
	for k := 0; k+1 < len(w.starts); k++ {
		ps, pe := w.starts[k], w.starts[k+1]
		for i := ps; i < pe; i++ {
			if i == ps || enc == nil || !bytes.Equal(rows.Row(i-1), rows.Row(i)) {
				w.peerStart[i] = int32(i)
				if enc == nil {
					w.peerStart[i] = int32(ps)
				}
			} else {
				w.peerStart[i] = w.peerStart[i-1]
			}
			if int(w.peerStart[i]) == i || i == ps {
				w.groupStart = append(w.groupStart, int32(i))
			}
			w.group[i] = int32(len(w.groupStart) - 1)
		}
		for i := pe - 1; i >= ps; i-- {
			if i == pe-1 || w.peerStart[i+1] != w.peerStart[i] {
				w.peerEnd[i] = int32(i + 1)
				if enc == nil {
					w.peerEnd[i] = int32(pe)
				}
			} else {
				w.peerEnd[i] = w.peerEnd[i+1]
			}
		}
	}
	return nil
}

// bounds is row i's frame [fs, fe) in the partition [ps, pe).
func (w *winBlock) bounds(f frame, i, ps, pe int) (int, int) {
	span := int64(pe - ps)
	at := func(b frameBound, end bool) int {
		n := int(min(b.n, span))
		var x int
		switch b.kind {
		case boundUnboundedPreceding:
			return ps
		case boundUnboundedFollowing:
			return pe
		case boundCurrent:
			switch {
			case f.rows && end:
				return i + 1
			case f.rows:
				return i
			case end:
				return int(w.peerEnd[i])
			}
			return int(w.peerStart[i])
		case boundPreceding, boundFollowing:
			switch {
			case f.groups:
				return w.groupBound(b, i, ps, pe, n, end)
			case f.rows && b.kind == boundPreceding:
				x = i - n
			case f.rows:
				x = i + n
			case end:
				return int(w.rangeEnd[i])
			default:
				return int(w.rangeStart[i])
			}
		}
		if end {
			x++
		}
		return min(max(x, ps), pe)
	}
	fs, fe := at(f.start, false), at(f.end, true)
	return fs, max(fs, fe)
}

// groupBound is a GROUPS frame's n PRECEDING or FOLLOWING bound of row
// i (n at most the partition's size): the first row of the peer group n
// groups before or after i's, or the end of that group for the frame's end;
// past the partition's first or last group, its start or end.
func (w *winBlock) groupBound(b frameBound, i, ps, pe, n int, end bool) int {
	g := int(w.group[i]) + n
	if b.kind == boundPreceding {
		g = int(w.group[i]) - n
	}
	switch {
	case g < int(w.group[ps]):
		return ps
	case g > int(w.group[pe-1]):
		return pe
	case end:
		return int(w.peerEnd[w.groupStart[g]])
	}
	return int(w.groupStart[g])
}

// span is the rows [lo, hi); empty when hi <= lo.
type span struct{ lo, hi int }

// pieces is row i's frame [fs, fe) less what its EXCLUDE clause leaves
// out, as up to three spans in row order: before the row's peers, the
// row itself (EXCLUDE TIES), after its peers.
func (w *winBlock) pieces(f frame, i, fs, fe int) [3]span {
	var xs, xe int // the rows left out
	switch f.exclude {
	case excludeNoOthers:
		return [3]span{{fs, fe}}
	case excludeCurrentRow:
		xs, xe = i, i+1
	default:
		xs, xe = int(w.peerStart[i]), int(w.peerEnd[i])
	}
	p := [3]span{{fs, min(fe, xs)}, {}, {max(fs, xe), fe}}
	if f.exclude == excludeTies && fs <= i && i < fe {
		p[1] = span{i, i + 1}
	}
	return p
}

// call computes one window call over the block.
func (w *winBlock) call(ctx context.Context, c windowCall) (arrow.Array, error) {
	if err := w.rangeOffsets(c); err != nil {
		return nil, err
	}
	switch c.kind {
	case winRowNumber, winRank, winDenseRank, winNtile:
		return w.ranks(c), nil
	case winPercentRank, winCumeDist:
		return w.distribution(c), nil
	case winAggregate:
		if c.fn != agg.Min && c.fn != agg.Max {
			return w.aggregate(c)
		}
	case winGeneric:
		return w.generic(ctx, c) // window_eval_agg.go
	}
	sel, err := w.pick(c)
	if err != nil {
		return nil, err
	}
	return w.gather(ctx, c, sel)
}

func (w *winBlock) eachPartition(f func(ps, pe int)) {
	for k := 0; k+1 < len(w.starts); k++ {
		f(w.starts[k], w.starts[k+1])
	}
}

// ranks computes row_number, rank, dense_rank and ntile.
func (w *winBlock) ranks(c windowCall) arrow.Array {
	vals := make([]int64, w.n)
	w.eachPartition(func(ps, pe int) {
		dense := int64(0)
		size := int64(pe - ps)
		for i := ps; i < pe; i++ {
			r := int64(i - ps)
			switch c.kind {
			case winRowNumber:
				vals[i] = r + 1
			case winRank:
				vals[i] = int64(int(w.peerStart[i])-ps) + 1
			case winDenseRank:
				if int(w.peerStart[i]) == i {
					dense++
				}
				vals[i] = dense
			case winNtile:
				vals[i] = ntileOf(r, size, c.n) // window_spill_calls.go
			}
		}
	})
	b := array.NewInt64Builder(w.rt.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// distribution computes percent_rank and cume_dist.
func (w *winBlock) distribution(c windowCall) arrow.Array {
	vals := make([]float64, w.n)
	w.eachPartition(func(ps, pe int) {
		size := float64(pe - ps)
		for i := ps; i < pe; i++ {
			if c.kind == winCumeDist {
				vals[i] = float64(int(w.peerEnd[i])-ps) / size
			} else if pe-ps > 1 {
				vals[i] = float64(int(w.peerStart[i])-ps) / (size - 1)
			}
		}
	})
	b := array.NewFloat64Builder(w.rt.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// pick chooses the row whose value each row gets: a row of the block, or
// -1 for the call's fallback (NULL, or lag's and lead's default).
func (w *winBlock) pick(c windowCall) ([]int32, error) {
	sel := make([]int32, w.n)
	var keys sortkey.Rows
	if c.kind == winAggregate { // min, max: the arguments' order
		enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: c.typ, Desc: c.fn == agg.Max}})
		if err != nil {
			return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
		}
		if err := enc.Encode(&keys, []arrow.Array{w.arg(c.arg)}); err != nil {
			return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
		}
	}
	arg := w.arg(c.arg)
	w.eachPartition(func(ps, pe int) {
		var queue []int32  // min/max: candidates, best first
		next := ps         // min/max: the next row to enter the queue
		var tree *bestTree // min/max with EXCLUDE: the frame has holes, so no queue
		if c.kind == winAggregate && c.frame.exclude != excludeNoOthers {
			tree = newBestTree(pe-ps, func(a, b int) bool {
				return bytes.Compare(keys.Row(ps+a), keys.Row(ps+b)) < 0
			}, func(a int) bool { return arg.IsValid(ps + a) })
		}
		for i := ps; i < pe; i++ {
			j := -1
			switch c.kind {
			case winLag:
				if c.n <= int64(i-ps) {
					j = i - int(c.n)
				}
			case winLead:
				if c.n < int64(pe-i) {
					j = i + int(c.n)
				}
			case winFirstValue, winLastValue, winNthValue:
				fs, fe := w.bounds(c.frame, i, ps, pe)
				j = nthOf(w.pieces(c.frame, i, fs, fe), c)
			case winAggregate:
				fs, fe := w.bounds(c.frame, i, ps, pe)
				if tree != nil {
					for _, p := range w.pieces(c.frame, i, fs, fe) {
						if k := tree.best(p.lo-ps, p.hi-ps); k >= 0 && (j < 0 || tree.better(k, j-ps)) {
							j = ps + k
						}
					}
					break
				}
				for ; next < fe; next++ {
					if arg.IsNull(next) {
						continue
					}
					for len(queue) > 0 && bytes.Compare(keys.Row(int(queue[len(queue)-1])), keys.Row(next)) > 0 {
						queue = queue[:len(queue)-1]
					}
					queue = append(queue, int32(next))
				}
				for len(queue) > 0 && int(queue[0]) < fs {
					queue = queue[1:]
				}
				if len(queue) > 0 {
					j = int(queue[0])
				}
			}
			sel[i] = int32(j)
		}
	})
	return sel, nil
}

// nthOf is the row of pieces (a frame in row order) first_value,
// last_value or nth_value takes, or -1.
func nthOf(pieces [3]span, c windowCall) int {
	if c.kind == winLastValue {
		for k := len(pieces) - 1; k >= 0; k-- {
			if p := pieces[k]; p.hi > p.lo {
				return p.hi - 1
			}
		}
		return -1
	}
	n := 1
	if c.kind == winNthValue {
		n = int(min(c.n, math.MaxInt32))
	}
	for _, p := range pieces {
		if size := p.hi - p.lo; size > 0 {
			if n <= size {
				return p.lo + n - 1
			}
			n -= size
		}
	}
	return -1
}

func (w *winBlock) arg(i int) arrow.Array { return w.block.Column(w.argBase + i) }

// gather takes the picked rows' values: the argument's, or the
// fallback's at the same row.
func (w *winBlock) gather(ctx context.Context, c windowCall, sel []int32) (arrow.Array, error) {
	src := array.NewSlice(w.arg(c.arg), 0, int64(w.n))
	defer src.Release()
	fallback := false
	for i, j := range sel {
		if j < 0 {
			sel[i] = int32(w.n + i)
			fallback = true
		}
	}
	if fallback {
		fb := array.NewSlice(w.arg(c.fallback), 0, int64(w.n))
		both, err := array.Concatenate([]arrow.Array{src, fb}, w.rt.mem)
		fb.Release()
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
		}
		defer both.Release()
		src = both
	}
	out, err := take.Array(ctx, w.rt.mem, src, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}

// aggregate computes count, sum and avg over each row's frame.
func (w *winBlock) aggregate(c windowCall) (arrow.Array, error) {
	var arg arrow.Array
	if c.fn != agg.CountStar {
		arg = w.arg(c.arg)
	}
	// Prefixes per partition: index k of [ps, pe] covers rows [ps, k).
	counts := make([]int64, w.n+1) // non-NULL values
	var sums []decimal128.Num      // integers and decimals: prefix sums in 128 bits
	var floats []float64           // float64 values, NULL as 0
	var ints *array.Int64
	var decs *array.Decimal128
	scale := int32(0)
	switch a := arg.(type) {
	case *array.Int64:
		ints = a
		sums = make([]decimal128.Num, w.n+1)
	case *array.Decimal128:
		decs = a
		scale = a.DataType().(*arrow.Decimal128Type).Scale
		sums = make([]decimal128.Num, w.n+1)
	case *array.Float64:
		floats = make([]float64, w.n)
		for i := range w.n {
			if a.IsValid(i) {
				floats[i] = a.Value(i)
			}
		}
	case nil:
	default:
		if c.fn != agg.Count {
			return nil, &Error{Kind: ErrUnsupported, Msg: c.text + " over " + arg.DataType().String()}
		}
	}
	var ib *array.Int64Builder
	var fb *array.Float64Builder
	var db *array.Decimal128Builder
	switch t := c.typ.(type) {
	case *arrow.Int64Type:
		ib = array.NewInt64Builder(w.rt.mem)
		defer ib.Release()
		ib.Reserve(w.n)
	case *arrow.Float64Type:
		fb = array.NewFloat64Builder(w.rt.mem)
		defer fb.Release()
		fb.Reserve(w.n)
	case *arrow.Decimal128Type:
		db = array.NewDecimal128Builder(w.rt.mem, t)
		defer db.Release()
		db.Reserve(w.n)
	}
	var overflow error
	w.eachPartition(func(ps, pe int) {
		counts[ps] = 0
		if sums != nil {
			sums[ps] = decimal128.Num{}
		}
		for i := ps; i < pe; i++ {
			valid := arg == nil || arg.IsValid(i)
			counts[i+1] = counts[i]
			if valid {
				counts[i+1]++
			}
			if sums != nil {
				sums[i+1] = sums[i]
				if valid && ints != nil {
					sums[i+1] = sums[i+1].Add(decimal128.FromI64(ints.Value(i)))
				} else if valid {
					sums[i+1] = sums[i+1].Add(decs.Value(i))
				}
			}
		}
		var tree *sumTree
		runningFloat := c.frame.start.kind == boundUnboundedPreceding && c.frame.exclude == excludeNoOthers
		if floats != nil && !runningFloat && c.fn != agg.Count {
			tree = newSumTree(floats[ps:pe])
		}
		var run float64
		ran := ps // rows [ps, ran) are in run
		for i := ps; i < pe; i++ {
			fs, fe := w.bounds(c.frame, i, ps, pe)
			pieces := w.pieces(c.frame, i, fs, fe)
			var cnt, rows int64
			for _, p := range pieces {
				if p.hi > p.lo {
					cnt += counts[p.hi] - counts[p.lo]
					rows += int64(p.hi - p.lo)
				}
			}
			switch {
			case c.fn == agg.Count || c.fn == agg.CountStar:
				if c.fn == agg.CountStar {
					cnt = rows
				}
				ib.Append(cnt)
			case cnt == 0:
				appendNull(ib, fb, db)
			case floats != nil:
				var s float64
				if tree != nil {
					for _, p := range pieces {
						if p.hi > p.lo {
							s += tree.sum(p.lo-ps, p.hi-ps)
						}
					}
				} else {
					for ; ran < fe; ran++ {
						run += floats[ran]
					}
					s = run
				}
				if c.fn == agg.Avg {
					s /= float64(cnt)
				}
				fb.Append(s)
			default:
				var s decimal128.Num
				for _, p := range pieces {
					if p.hi > p.lo {
						s = s.Add(sums[p.hi].Sub(sums[p.lo]))
					}
				}
				switch {
				case c.fn == agg.Avg:
					fb.Append(s.ToFloat64(scale) / float64(cnt))
				case ints != nil:
					if s.Greater(decimal128.FromI64(math.MaxInt64)) || s.Less(decimal128.FromI64(math.MinInt64)) {
						overflow = &Error{Kind: ErrExec, Msg: c.text + ": the sum passes BIGINT (CAST the argument to DECIMAL)", Err: agg.ErrOverflow}
						ib.AppendNull()
						continue
					}
					ib.Append(int64(s.LowBits()))
				default:
					db.Append(s)
				}
			}
		}
	})
	if overflow != nil {
		return nil, overflow
	}
	switch {
	case ib != nil:
		return ib.NewArray(), nil
	case fb != nil:
		return fb.NewArray(), nil
	}
	return db.NewArray(), nil
}

func appendNull(ib *array.Int64Builder, fb *array.Float64Builder, db *array.Decimal128Builder) {
	switch {
	case ib != nil:
		ib.AppendNull()
	case fb != nil:
		fb.AppendNull()
	default:
		db.AppendNull()
	}
}

// sumTree is a segment tree of float64 sums: a frame's sum in O(log n),
// adding the values in a fixed order whatever the frame.
type sumTree struct {
	n    int
	node []float64
}

func newSumTree(vals []float64) *sumTree {
	n := len(vals)
	t := &sumTree{n: n, node: make([]float64, 2*n)}
	copy(t.node[n:], vals)
	for i := n - 1; i > 0; i-- {
		t.node[i] = t.node[2*i] + t.node[2*i+1]
	}
	return t
}

// sum is the sum of values [lo, hi).
func (t *sumTree) sum(lo, hi int) float64 {
	var s float64
	for lo, hi = lo+t.n, hi+t.n; lo < hi; lo, hi = lo/2, hi/2 {
		if lo&1 == 1 {
			s += t.node[lo]
			lo++
		}
		if hi&1 == 1 {
			hi--
			s += t.node[hi]
		}
	}
	return s
}
