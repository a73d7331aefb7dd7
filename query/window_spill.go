package query

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/spill"
)

// A window partition larger than memory whose calls need more than the
// rows around a row (so it cannot be streamed, window_stream.go) is
// spilled, with Options.Spill set, and computed in two passes:
//
//  1. Once the rows held of one partition pass half the memory limit,
//     they and every later batch of the partition are written to a spill
//     file (package spill: the query's Manager, its quota, checksums) as
//     they arrive, and released. Meanwhile the pass learns what needs the
//     whole partition (winWhole, window_spill_calls.go): its row count,
//     and per call the totals of a count, sum or avg, the best value of a
//     min or max, the row first_value, last_value or nth_value take, or
//     the state of an aggregate of package agg (one group).
//  2. When the partition ends, the file is read back in order and the
//     partition is streamed as window_stream.go streams one: chunks of
//     about half the limit, the last rows of each carried before the next,
//     the rows that cannot be computed yet (the ones whose frames reach
//     past the chunk, an open peer group) held for the next. The window's
//     output is read from one chunk at a time, so what the second pass
//     holds is a chunk; the rows after the partition wait.
//
// Each call takes the simplest path that is correct for it (winPath,
// window_spill_path.go):
//
//   - row_number, rank, dense_rank, lag, lead, running count, sum, avg,
//     min, max: as streamed (pathStream).
//   - ntile: the row's position and the partition's row count;
//     percent_rank: its rank and the count; cume_dist: the end of its
//     peer group, held whole in the chunk, and the count (pathRank).
//   - count(*), count, and sum and avg of integers and decimals over a
//     frame whose bounds are UNBOUNDED, CURRENT ROW (ROWS, RANGE or
//     GROUPS) or a ROWS offset: the sum to the frame's end less the sum
//     before its start, from prefix sums over the chunk anchored at the
//     rows emitted, 0 at the partition's start and the first pass's total
//     at its end (pathPrefix). Exact: the sums are 128-bit.
//   - any other call over the whole partition (UNBOUNDED on both sides, or
//     RANGE/GROUPS CURRENT ROW without ORDER BY): float sum and avg, min,
//     max, first_value, last_value, nth_value, every aggregate of package
//     agg: the first pass's value on every row (pathTotal).
//   - min, max, and float sum and avg over a frame from CURRENT ROW or a
//     ROWS offset to UNBOUNDED FOLLOWING, which cannot be taken back out
//     of a total: the first pass keeps each batch it writes' best value or
//     float sum, folded from the last batch back; the second folds the
//     chunk backwards and adds the fold of the batches not read yet
//     (pathSuffix, window_spill_suffix.go). The float sums add in another
//     order than in memory, so may differ in the last bits.
//   - first_value and nth_value over a frame from UNBOUNDED PRECEDING,
//     last_value over one to UNBOUNDED FOLLOWING: the row each takes is
//     the partition's first, nth or last, kept by the first pass, and a
//     row takes it when its frame holds that row (pathEdge).
//   - any call over a ROWS frame whose bounds are offsets (up to
//     maxStreamOffset) or CURRENT ROW, EXCLUDE CURRENT ROW at most
//     (first_value, min, a float sum, median, …): the frames lie in the
//     chunk with the rows carried before it and held after it, so it is
//     computed in memory over those rows (pathBlock). A float sum over
//     such frames adds in another order than over the whole partition,
//     so may differ from it in the last bits.
//
// What is left needs the whole partition and fails past the limit with
// ErrMemory naming the call: frames with RANGE offsets or GROUPS offsets
// that do not reach the partition's ends, EXCLUDE GROUP or TIES, lag and
// lead past maxStreamOffset, first_value and nth_value over frames from a
// row to the partition's end, and min, max, float sums and the aggregates
// of package agg over frames from the partition's start to a row ahead
// (or, for package agg's, from a row to its end). An aggregate
// that keeps its values (median, string_agg) over the whole partition
// still holds them all, charged, and fails past the limit.

// winSpill is the first pass over a spilled partition.
type winSpill struct {
	w     *spill.Writer
	whole *winWhole
	last  arrow.RecordBatch // the last row written: the partition's keys
}

// winReplay is the second pass: the file read back.
type winReplay struct {
	f    *spill.File
	r    *spill.Reader
	read int // batches read
}

// winSpillStats is what a window wrote to spill files (its sort's are
// the sort's own), registered for Result.Stats.
type winSpillStats struct{ st atomic.Pointer[SpillStats] }

func (s *winSpillStats) spillStats() SpillStats {
	if p := s.st.Load(); p != nil {
		return *p
	}
	return SpillStats{}
}

func (s *winSpillStats) add(d SpillStats) {
	s.st.Store(ptr(s.spillStats().Add(d)))
}

func ptr[T any](v T) *T { return &v }

func (o *windowOp) argBase() int { return o.width + len(o.n.partition) + len(o.n.order) }

// startSpill begins the first pass with the rows held.
func (o *windowOp) startSpill(ctx context.Context) error {
	w, err := o.rt.spill.NewFile("window")
	if err != nil {
		return o.spillError(ctx, err)
	}
	o.wspill = &winSpill{w: w, whole: &winWhole{calls: make([]wholeCall, len(o.n.calls))}}
	held := o.held
	o.held = nil
	defer func() {
		for _, r := range held {
			r.Release()
		}
		o.rt.mt.shrink(o.heldBytes)
		o.heldBytes = 0
	}()
	for _, rec := range held {
		if err := o.spillWrite(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// spillWrite takes rec, rows of the partition being spilled, into the
// first pass: its totals, the file and its last row.
func (o *windowOp) spillWrite(ctx context.Context, rec arrow.RecordBatch) error {
	ws := o.wspill
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := o.wholeAdd(ctx, ws.whole, rec); err != nil {
		return err
	}
	start := time.Now()
	err := ws.w.Write(rec)
	o.spillTime += time.Since(start)
	if err != nil {
		return o.spillError(ctx, err)
	}
	n := int(rec.NumRows())
	last, err := copyRows(o.rt, rec, n-1, n)
	if err != nil {
		return err
	}
	if ws.last != nil {
		ws.last.Release()
	}
	ws.last = last
	return nil
}

// spillError makes a spill error a query error naming the window.
func (o *windowOp) spillError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return wrapExec(err, "window ("+o.n.specText+") spilling a partition past "+o.rt.mt.names.limit)
}

// flushSpilled ends the partition being spilled at the first partition
// of rec (nil: the input ended), starts its second pass, and keeps the
// rest of rec for after it (final: then compute it all).
func (o *windowOp) flushSpilled(ctx context.Context, rec arrow.RecordBatch, final bool) error {
	if rec != nil {
		block, err := concatBatches(o.rt.mem, rec.Schema(), []arrow.RecordBatch{o.wspill.last, rec}) // ddl_rebatch.go
		rec.Release()
		if err != nil {
			return err
		}
		defer block.Release()
		starts, err := o.partitionStarts(block)
		if err != nil {
			return err
		}
		n := int(block.NumRows())
		first := n
		if len(starts) > 1 {
			first = starts[1]
		}
		if first > 1 {
			head := block.NewSlice(1, int64(first))
			err = o.spillWrite(ctx, head)
			head.Release()
			if err != nil {
				return err
			}
		}
		if first < n {
			o.after = block.NewSlice(int64(first), int64(n))
			o.afterBytes = batchBytes(o.after)
			o.rt.mt.charge(o.afterBytes)
		}
	}
	o.afterFinal = final
	return o.endPass1(ctx)
}

// endPass1 finishes the file and the totals and opens the second pass.
func (o *windowOp) endPass1(ctx context.Context) error {
	ws := o.wspill
	o.wspill = nil
	defer func() {
		ws.w.Abort() // nothing after Finish
		if ws.last != nil {
			ws.last.Release()
		}
		ws.whole.release(o.rt.mt) // nil once the carry owns it
	}()
	start := time.Now()
	f, err := ws.w.Finish()
	o.spillTime += time.Since(start)
	if err != nil {
		return o.spillError(ctx, err)
	}
	o.stats.add(SpillStats{Files: 1, Bytes: f.Bytes(), Rows: f.Rows(), Time: o.spillTime})
	o.spillTime = 0
	r, err := f.Open(o.rt.mem)
	if err != nil {
		_ = f.Remove()
		return o.spillError(ctx, err)
	}
	o.replay = &winReplay{f: f, r: r}
	if err := ws.whole.finish(o); err != nil {
		return err
	}
	o.carry = &winCarry{calls: make([]callCarry, len(o.n.calls)), whole: ws.whole}
	ws.whole = nil
	return nil
}

// replayStep reads the next batch of the spilled partition and computes
// the rows held once they pass half the limit; at the file's end it
// computes the rest, removes the file and goes on with the rows after
// the partition.
func (o *windowOp) replayStep(ctx context.Context) error {
	r := o.replay.r
	if r.Next() {
		o.replay.read++
		rec := r.RecordBatch()
		rec.Retain()
		o.held = append(o.held, rec)
		size := batchBytes(rec)
		o.rt.mt.charge(size)
		o.heldBytes += size
		if o.heldBytes > o.rt.mt.limit/2 {
			return o.streamHeld(ctx)
		}
		return nil
	}
	if err := r.Err(); err != nil {
		return o.spillError(ctx, err)
	}
	parts := o.held
	if o.carry.ctx != nil {
		parts = append([]arrow.RecordBatch{o.carry.ctx}, parts...)
	}
	if len(parts) > 0 {
		block, err := concatBatches(o.rt.mem, parts[0].Schema(), parts) // ddl_rebatch.go
		o.releaseHeld()
		if err != nil {
			return err
		}
		err = o.streamFinal(ctx, block)
		block.Release()
		if err != nil {
			return err
		}
	}
	o.endCarry()
	o.closeReplay()
	if o.after != nil {
		o.held = []arrow.RecordBatch{o.after}
		o.heldBytes = o.afterBytes // charged
		o.after, o.afterBytes = nil, 0
	}
	return o.flush(ctx, nil, o.afterFinal)
}

// closeReplay removes the spilled partition's file.
func (o *windowOp) closeReplay() {
	if o.replay == nil {
		return
	}
	o.replay.r.Release()
	_ = o.replay.f.Remove()
	o.replay = nil
}

// closeSpill releases what spilling holds and removes its files, on
// every path (Close).
func (o *windowOp) closeSpill() {
	if ws := o.wspill; ws != nil {
		ws.w.Abort()
		if ws.last != nil {
			ws.last.Release()
		}
		ws.whole.release(o.rt.mt)
		o.wspill = nil
	}
	o.closeReplay()
	if o.after != nil {
		o.after.Release()
		o.rt.mt.shrink(o.afterBytes)
		o.after, o.afterBytes = nil, 0
	}
}
