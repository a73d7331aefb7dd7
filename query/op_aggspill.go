package query

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/agg"
)

// GROUP BY past memory. With Options.Spill set, each worker's hash table
// is capped at a share of MemoryLimit (tableShare); an Add or Merge that
// would pass it fails inside the aggregator, which is left as it was, and
// the table is written as a run of partial states sorted by group key
// (package agg's Spiller), emptied and the batch retried. At the end, if
// anything was spilled, the other workers' tables are spilled too, the
// last one is sorted and kept in memory, and the runs are merged by key,
// combining equal keys, as the operator's output is read. What the
// sorting and merging hold is charged to the query's memory tracker.

// aggSpill is the spilling state of one aggregateOp.
type aggSpill struct {
	sp     *agg.Spiller // sorted runs; nil when hs spills
	hs     *aggShuffle  // through the shuffle (op_aggshuffle.go)
	share  int64        // bytes each hash table may hold
	reader array.RecordReader
}

// tableShare is what each of a GROUP BY's workers' hash tables may hold
// when spilling, so that the tables, the sorted copy of the one being
// spilled (one at a time) and the merge's read buffers all fit the limit.
func tableShare(limit int64, workers int) int64 {
	if limit <= 0 {
		return 0
	}
	return max(limit/int64(workers+2), 64<<10)
}

// aggOptions are the options of the operator's hash aggregators.
func (o *aggregateOp) aggOptions() agg.Options {
	opts := agg.Options{Mem: o.rt.mem, Dense: o.n.dense}
	if o.rt.spill != nil && o.n.serial() == "" {
		opts.MemoryLimit = tableShare(o.rt.mt.limit, max(o.rt.workers, 1))
	}
	return opts
}

// startSpill prepares spilling for aggregators of h's shape, when the
// query may spill.
//
// An aggregate without partial states (agg.Serial: string_agg, the
// quantiles) cannot spill: the aggregation then holds
// every group in memory, and fails with ErrMemory naming it when it
// would pass the limit (trackTable).
func (o *aggregateOp) startSpill(h *agg.HashAggregator) error {
	if o.rt.spill == nil || o.spill != nil || o.n.serial() != "" {
		return nil
	}
	share := o.aggOptions().MemoryLimit
	if o.hashSpills() {
		hs, err := newAggShuffle(o, h)
		if err != nil {
			return err
		}
		o.spill = &aggSpill{hs: hs, share: share}
		o.rt.spills.add(o)
		return nil
	}
	sp, err := agg.NewSpiller(h, agg.SpillConfig{
		Manager: o.rt.spill,
		Owner:   "groupby",
		Budget:  sortBudget{o.rt.mt}, // the query's tracker, as ORDER BY charges it
		// Batches of a few hundred rows per MiB of a table's share: a
		// merge holds one of each run at once.
		BatchRows: int(min(max(share>>11, 128), agg.DefaultSpillBatchRows)),
		// Result batches of up to outputBatchRows groups, which the
		// merge combines at once.
		ResultRows: int(min(max(share>>8, 128), outputBatchRows)),
	})
	if err != nil {
		return &Error{Kind: ErrExec, Msg: "GROUP BY spilling", Err: err}
	}
	o.spill = &aggSpill{sp: sp, share: share}
	o.rt.spills.add(o)
	return nil
}

// addSpilling adds a batch's keys and args to h. When h passes its
// share of memory it spills h and adds them again to the emptied table;
// a batch too large even for that is added in halves.
func (o *aggregateOp) addSpilling(ctx context.Context, h *agg.HashAggregator, rows int, keys, args []arrow.Array) error {
	return o.chunked(ctx, h, rows, func(lo, hi int) error {
		if lo == 0 && hi == rows {
			return h.Add(keys, args)
		}
		ks, as := sliceAll(keys, lo, hi), sliceAll(args, lo, hi)
		defer releaseAll(ks)
		defer releaseAll(as)
		return h.Add(ks, as)
	})
}

// mergeSpilling merges a partial batch into h as addSpilling adds.
func (o *aggregateOp) mergeSpilling(ctx context.Context, h *agg.HashAggregator, p arrow.RecordBatch) error {
	return o.chunked(ctx, h, int(p.NumRows()), func(lo, hi int) error {
		if lo == 0 && hi == int(p.NumRows()) {
			return h.Merge(p)
		}
		s := p.NewSlice(int64(lo), int64(hi))
		defer s.Release()
		return h.Merge(s)
	})
}

// scratchPerRow is about what a hash table's per-batch scratch costs per
// row (hashes, group ids, probe lists, non-NULL row lists): 50-odd bytes.
const scratchPerRow = 64

// chunked runs spilling over [0, rows) in chunks whose scratch takes at
// most a quarter of the table's share: scratch sized for a large batch
// stays with the table, and would leave a small share no room for groups.
func (o *aggregateOp) chunked(ctx context.Context, h *agg.HashAggregator, rows int, add func(lo, hi int) error) error {
	if o.spill == nil {
		return add(0, rows)
	}
	chunk := int(max(o.spill.share/4/scratchPerRow, minSplitRows))
	for lo := 0; lo < rows; lo += chunk {
		if err := o.spilling(ctx, h, lo, min(rows, lo+chunk), add); err != nil {
			return err
		}
	}
	return nil
}

// minSplitRows is the fewest rows spilling adds at once: fewer that do
// not fit the table's share mean the share is too small for anything.
const minSplitRows = 64

// spilling runs add(from, to) against h; when h passes its share of
// memory (agg.ErrMemoryLimit, h as it was) and the query may spill, it
// spills h and runs add again, splitting [lo, hi) in halves while even an
// empty table cannot take it.
func (o *aggregateOp) spilling(ctx context.Context, h *agg.HashAggregator, from, to int, add func(lo, hi int) error) error {
	var try func(lo, hi int) error
	try = func(lo, hi int) error {
		err := add(lo, hi)
		if err == nil || o.spill == nil || !errors.Is(err, agg.ErrMemoryLimit) {
			return err
		}
		if h.Groups() > 0 { // always, without keys: the global group
			if err := o.spillTable(ctx, h); err != nil {
				return err
			}
			if err = add(lo, hi); err == nil || !errors.Is(err, agg.ErrMemoryLimit) {
				return err
			}
		}
		// The empty table's memory, kept for reuse, is sized for
		// another phase or larger batches: give it back.
		if err := h.Shrink(); err != nil {
			return err
		}
		if err = add(lo, hi); err == nil || !errors.Is(err, agg.ErrMemoryLimit) {
			return err
		}
		if hi-lo <= minSplitRows {
			return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("GROUP BY: %d rows need more than a hash table's share (%d bytes) of the %d-byte memory limit", hi-lo, o.spill.share, o.rt.mt.limit), Err: err}
		}
		mid := lo + (hi-lo)/2
		if err := try(lo, mid); err != nil {
			return err
		}
		return try(mid, hi)
	}
	return try(from, to)
}

func sliceAll(arrs []arrow.Array, lo, hi int) []arrow.Array {
	out := make([]arrow.Array, len(arrs))
	for i, a := range arrs {
		out[i] = array.NewSlice(a, int64(lo), int64(hi))
	}
	return out
}

// spillTable writes h's groups as a run and empties h.
func (o *aggregateOp) spillTable(ctx context.Context, h *agg.HashAggregator) error {
	if o.spill.hs != nil {
		return o.spill.hs.spillTable(ctx, h)
	}
	if err := o.spill.sp.Spill(ctx, h); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Kind: ErrExec, Msg: "GROUP BY spilling", Err: err}
	}
	return nil
}

// trackTable charges n more bytes of a hash table to the query. When
// spilling, the table's share bounds it already, and the charge cannot
// fail (another table's spill may hold the tracker past the limit for a
// moment).
func (o *aggregateOp) trackTable(n int64) error {
	if o.spill != nil {
		sortBudget{o.rt.mt}.Grow(n)
		return nil
	}
	return o.rt.mt.grow(n, o.memWhat())
}

// memWhat names the aggregation in ErrMemory's message.
func (o *aggregateOp) memWhat() string {
	if s := o.n.serial(); s != "" {
		return fmt.Sprintf("GROUP BY with %s, which keeps its groups in memory (it does not spill),", s)
	}
	return "GROUP BY"
}

// spilled reports whether any table went to disk.
func (o *aggregateOp) spilled() bool {
	if o.spill == nil {
		return false
	}
	if o.spill.hs != nil {
		return o.spill.hs.spilled()
	}
	return o.spill.sp.Runs() > 0
}

// finishSpill ends a spilled aggregation: the tables of the workers but
// the first are spilled and released, the first is kept for the merge,
// and the merge becomes the operator's output.
func (o *aggregateOp) finishSpill(ctx context.Context, aggs []*agg.HashAggregator) error {
	if o.spill.hs != nil {
		return o.spill.hs.finish(ctx, aggs)
	}
	for i := 1; i < len(aggs); i++ {
		if err := o.spillTable(ctx, aggs[i]); err != nil {
			return err
		}
		aggs[i].Release()
		aggs[i] = nil
	}
	// The Spiller charges the last table while it sorts it, then frees it.
	r, err := o.spill.sp.Finish(ctx, aggs[0])
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Kind: ErrExec, Msg: "GROUP BY merging spilled groups", Err: err}
	}
	o.spill.reader = r
	return nil
}

// nextSpilled returns the next batch of the merge.
func (o *aggregateOp) nextSpilled(ctx context.Context) (arrow.RecordBatch, error) {
	if o.spill.hs != nil {
		return o.spill.hs.red.next(ctx)
	}
	r := o.spill.reader
	if !r.Next() {
		if err := r.Err(); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &Error{Kind: ErrExec, Msg: "GROUP BY merging spilled groups", Err: err}
		}
		return nil, io.EOF
	}
	rec := r.RecordBatch()
	// The aggregator's columns carry its own field names; give them the
	// plan's.
	return array.NewRecordBatch(o.schema, rec.Columns(), rec.NumRows()), nil
}

// closeSpill removes the operator's spill files.
func (o *aggregateOp) closeSpill() {
	if o.spill == nil {
		return
	}
	if o.spill.hs != nil {
		o.spill.hs.close()
		return
	}
	if o.spill.reader != nil {
		o.spill.reader.Release()
		o.spill.reader = nil
	}
	o.spill.sp.Close()
}

// spillStats is what the aggregate spilled so far.
func (o *aggregateOp) spillStats() SpillStats {
	if o.spill == nil {
		return SpillStats{}
	}
	if o.spill.hs != nil {
		return o.spill.hs.spillStats()
	}
	m := o.spill.sp.Metrics()
	return SpillStats{Files: int64(m.Files), Bytes: m.Bytes, Rows: m.Rows, Time: m.Time + m.MergeTime}
}

// spillMetrics are the Spiller's own metrics, for EXPLAIN ANALYZE.
func (o *aggregateOp) spillMetrics() (agg.SpillMetrics, bool) {
	if o.spill == nil || o.spill.sp == nil {
		return agg.SpillMetrics{}, false
	}
	return o.spill.sp.Metrics(), true
}

// wrapExec makes err an execution error about what, unless it is a query
// error already (a spill's ErrMemory or ErrExec).
func wrapExec(err error, what string) error {
	var qe *Error
	if errors.As(err, &qe) {
		return err
	}
	return &Error{Kind: ErrExec, Msg: what, Err: err}
}
