package query

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/sortkey"
)

// Suffix frames of a spilled partition (pathSuffix): min, max, and float
// sum and avg from a row to the partition's end. Neither a best value nor
// a float sum can be taken back out of a total, so the first pass keeps
// one partial per batch it writes (the batch's best value, its float sum
// and count), and at its end folds them from the last batch back: suffix
// b is what batches b, b+1, … hold. The second pass reads the batches in
// the same order; a chunk holds every row before the batches not read
// yet, so a row's frame is the chunk's rows from its start, folded
// backwards, and the suffix of the first batch not read.

// suffixState is one pathSuffix call's partials.
type suffixState struct {
	bests []arrow.Array // min, max: each batch's best (one row), nil: none
	sums  []float64     // float sum, avg: each batch's
	cnts  []int64
	// After the first pass: suffix b of the batches, for b in [0, batches]
	// (the last: none). best is the batches' bests and a NULL, bestAt[b]
	// the row of suffix b's best in it.
	best      arrow.Array
	bestAt    []int32
	sufSum    []float64
	sufCnt    []int64
	enc       *sortkey.Encoder
	bestCarry callCarry // streamBest's scratch
}

func (s *suffixState) release() {
	releaseAll(s.bests)
	s.bests = nil
	if s.best != nil {
		s.best.Release()
		s.best = nil
	}
}

// suffixAdd keeps the partials of w, the next batch written.
func (o *windowOp) suffixAdd(ctx context.Context, w *winBlock, c windowCall, s *suffixState) error {
	if c.fn == agg.Min || c.fn == agg.Max {
		rc := c
		rc.frame.rows = true
		s.bestCarry = callCarry{}
		a, err := o.streamBest(ctx, w, rc, &s.bestCarry, 0, w.n)
		if a != nil {
			a.Release()
		}
		if err != nil {
			return err
		}
		s.bests = append(s.bests, s.bestCarry.best) // nil: none
		s.bestCarry.best = nil
		return nil
	}
	arg := w.arg(c.arg).(*array.Float64)
	var sum float64
	for i := range w.n {
		if arg.IsValid(i) {
			sum += arg.Value(i)
		}
	}
	s.sums = append(s.sums, sum)
	s.cnts = append(s.cnts, int64(w.n-arg.NullN()))
	return nil
}

// suffixFinish folds the partials from the last batch back.
func (o *windowOp) suffixFinish(c windowCall, s *suffixState) error {
	if c.fn != agg.Min && c.fn != agg.Max {
		b := len(s.sums)
		s.sufSum, s.sufCnt = make([]float64, b+1), make([]int64, b+1)
		for i := b - 1; i >= 0; i-- {
			s.sufSum[i], s.sufCnt[i] = s.sums[i]+s.sufSum[i+1], s.cnts[i]+s.sufCnt[i+1]
		}
		return nil
	}
	typ := o.n.args[c.arg].Type()
	parts := make([]arrow.Array, 0, len(s.bests)+1)
	var nulls []arrow.Array
	defer func() { releaseAll(nulls) }()
	for _, b := range s.bests {
		if b == nil {
			b = array.MakeArrayOfNull(o.rt.mem, typ, 1)
			nulls = append(nulls, b)
		}
		parts = append(parts, b)
	}
	null := array.MakeArrayOfNull(o.rt.mem, typ, 1)
	nulls = append(nulls, null)
	parts = append(parts, null)
	best, err := array.Concatenate(parts, o.rt.mem)
	if err != nil {
		return &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	s.best = best
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: typ, Desc: c.fn == agg.Max}})
	if err != nil {
		return &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	s.enc = enc
	var keys sortkey.Rows
	if err := enc.Encode(&keys, []arrow.Array{best}); err != nil {
		return &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	b := len(s.bests)
	s.bestAt = make([]int32, b+1)
	s.bestAt[b] = int32(b) // the NULL
	for i := b - 1; i >= 0; i-- {
		s.bestAt[i] = s.bestAt[i+1]
		if best.IsValid(i) && (best.IsNull(int(s.bestAt[i])) || bytes.Compare(keys.Row(i), keys.Row(int(s.bestAt[i]))) <= 0) {
			s.bestAt[i] = int32(i)
		}
	}
	return nil
}

// spillSuffix computes call k for rows [ctxRows, end) of w: the rows
// from each frame's start to w's end, folded backwards, then the
// batches not read yet (read of them are).
func (o *windowOp) spillSuffix(ctx context.Context, w *winBlock, k, ctxRows, end, read int) (arrow.Array, error) {
	c := o.n.calls[k]
	s := &o.carry.whole.calls[k].suffix
	m := w.n
	start := func(i int) int { // the frame's first row in w, at most m
		f := c.frame
		switch {
		case f.start.kind == boundPreceding:
			return max(i-int(f.start.n), 0)
		case f.start.kind == boundFollowing:
			return min(i+int(f.start.n), m)
		case f.rows:
			return i
		}
		return int(w.peerStart[i])
	}
	if c.fn != agg.Min && c.fn != agg.Max {
		arg := w.arg(c.arg).(*array.Float64)
		sums, cnts := make([]float64, m+1), make([]int64, m+1)
		sums[m], cnts[m] = s.sufSum[read], s.sufCnt[read]
		for j := m - 1; j >= 0; j-- {
			sums[j], cnts[j] = sums[j+1], cnts[j+1]
			if arg.IsValid(j) {
				sums[j] += arg.Value(j)
				cnts[j]++
			}
		}
		b := array.NewFloat64Builder(o.rt.mem)
		defer b.Release()
		for i := ctxRows; i < end; i++ {
			j := start(i)
			switch {
			case cnts[j] == 0:
				b.AppendNull()
			case c.fn == agg.Avg:
				b.Append(sums[j] / float64(cnts[j]))
			default:
				b.Append(sums[j])
			}
		}
		return b.NewArray(), nil
	}
	// src: the chunk's values, then the tail's best (NULL when none).
	arg := array.NewSlice(w.arg(c.arg), 0, int64(m))
	defer arg.Release()
	tail := array.NewSlice(s.best, int64(s.bestAt[read]), int64(s.bestAt[read])+1)
	defer tail.Release()
	src, err := array.Concatenate([]arrow.Array{arg, tail}, o.rt.mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	defer src.Release()
	var keys sortkey.Rows
	if err := s.enc.Encode(&keys, []arrow.Array{src}); err != nil {
		return nil, &Error{Kind: ErrUnsupported, Msg: c.text, Err: err}
	}
	at := make([]int32, m+1) // at[j]: the best of rows j… (m: the tail)
	at[m] = int32(m)
	for j := m - 1; j >= 0; j-- {
		at[j] = at[j+1]
		if src.IsValid(j) && (src.IsNull(int(at[j])) || bytes.Compare(keys.Row(j), keys.Row(int(at[j]))) <= 0) {
			at[j] = int32(j)
		}
	}
	sel := make([]int32, 0, end-ctxRows)
	for i := ctxRows; i < end; i++ {
		sel = append(sel, at[start(i)])
	}
	out, err := take.Array(ctx, o.rt.mem, src, sel)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: c.text, Err: err}
	}
	return out, nil
}
