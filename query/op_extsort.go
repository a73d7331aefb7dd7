package query

import (
	"context"
	"errors"
	"io"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/extsort"
)

// extSortOp runs ORDER BY (and ORDER BY … LIMIT k as a top-k) through
// package extsort: keys compared as normalized bytes, within the query's
// memory limit; past it, sorted runs spill to Options.Spill and are merged
// back, or, with no spill Manager, the query fails with ErrMemory as
// before. Its memory is accounted to the query's tracker, shared with the
// operators below it.
//
// With one sorter it reads its input on one goroutine and is stable. With
// several (Options.SortWorkers) it is a parallel sort ending in an ordered
// gather (op_sort_gather.go), or with Options.SortByRanges a sort of key
// ranges, one per worker, concatenated (op_sort_range.go): not stable
// between workers.
type extSortOp struct {
	rt     *runtime
	in     operator
	keys   []sortKey
	limit  int64 // -1: none
	schema *arrow.Schema

	s       *extsort.Sorter   // sorters[0]
	sorters []*extsort.Sorter // one per worker
	what    string            // in errors: "ORDER BY", or a window's sort
	out     array.RecordReader
	stats   atomic.Pointer[SpillStats] // for Stats from other goroutines
	ranges  atomic.Pointer[string]     // by ranges: each range's rows, for EXPLAIN ANALYZE
	closed  bool
}

// newExtSortOp sorts in with workers sorters: one reads it on the caller's
// goroutine, more read it together (a parallel sort).
func newExtSortOp(rt *runtime, in operator, keys []sortKey, limit int64, schema *arrow.Schema, workers int) (*extSortOp, error) {
	o := &extSortOp{rt: rt, in: in, keys: keys, limit: limit, schema: schema, what: "ORDER BY"}
	workers = max(workers, 1)
	cfg := extsort.Config{
		Keys:      make([]extsort.Key, len(keys)),
		Budget:    sortBudget{rt.mt},
		Spill:     rt.spill,
		Owner:     "orderby",
		Mem:       rt.mem,
		BatchRows: outputBatchRows,
		Workers:   rt.workers,
	}
	for i, k := range keys {
		cfg.Keys[i] = extsort.Key{Col: k.col, Desc: k.desc, NullsFirst: k.nullsFirst}
	}
	if limit > 0 {
		cfg.Limit = limit
	}
	if workers > 1 && !rt.sortByRanges {
		// The workers are the parallelism: each gathers its sorted
		// batches on its own goroutine. (By ranges, the ranges are
		// read one after the other, each gathered on every core.)
		cfg.Workers = 1
	}
	for range workers {
		if workers > 1 && rt.mt.limit > 0 && rt.spill != nil {
			// A share only when past it the sorter can spill: without
			// a spill Manager the sort may use the whole limit.
			cfg.Budget = &shareBudget{sortBudget: sortBudget{rt.mt}, share: rt.mt.limit / int64(workers)} // op_sort_gather.go
		}
		s, err := extsort.New(schema, cfg)
		if err != nil {
			for _, s := range o.sorters {
				s.Close()
			}
			in.Close()
			return nil, sortError(rt.mt, err, o.what)
		}
		o.sorters = append(o.sorters, s)
	}
	o.s = o.sorters[0]
	o.stats.Store(&SpillStats{})
	if rt.spill != nil {
		rt.spills.add(o)
	}
	return o, nil
}

func (o *extSortOp) Schema() *arrow.Schema { return o.schema }

func (o *extSortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if o.out == nil {
		var err error
		switch {
		case len(o.sorters) > 1 && o.rt.sortByRanges:
			o.out, err = o.sortByRanges(ctx) // op_sort_range.go
		case len(o.sorters) > 1:
			o.out, err = o.sortParallel(ctx, newSharedInput(o.in)) // op_sort_gather.go
		default:
			err = drain(ctx, o.in, func(rec arrow.RecordBatch) error {
				if o.limit == 0 {
					return nil // LIMIT 0: the input still runs, for its errors
				}
				return o.s.Add(ctx, rec)
			})
			if err == nil {
				o.out, err = o.s.Finish(ctx)
			}
		}
		o.snapshot()
		if err != nil {
			return nil, sortError(o.rt.mt, err, o.what)
		}
	}
	if o.limit == 0 || !o.out.Next() {
		o.snapshot()
		if err := o.out.Err(); err != nil {
			return nil, sortError(o.rt.mt, err, o.what)
		}
		return nil, io.EOF
	}
	rec := o.out.RecordBatch()
	rec.Retain()
	return rec, nil
}

// snapshot publishes what the sort spilled so far.
func (o *extSortOp) snapshot() {
	m := extsort.SumMetrics(o.sorters)
	o.stats.Store(&SpillStats{Files: int64(m.SpillFiles), Bytes: m.SpilledBytes, Rows: m.SpilledRows, Time: m.SpillTime})
}

// spillStats is what the sort spilled so far.
func (o *extSortOp) spillStats() SpillStats { return *o.stats.Load() }

func (o *extSortOp) Close() {
	if o.closed {
		return
	}
	o.closed = true
	if o.out != nil {
		o.out.Release()
		o.out = nil
	}
	for _, s := range o.sorters {
		s.Close()
	}
	o.in.Close()
}

// sortError makes an extsort error a query error: past the memory limit
// is ErrMemory; spill errors (a quota, a full disk, a damaged file) keep
// their own sentinels under ErrExec; a cancellation stays what it is.
func sortError(mt *memTracker, err error, what string) error {
	var qe *Error
	switch {
	case errors.As(err, &qe), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, extsort.ErrMemory):
		return mt.sortMemoryError(err, what) // memerr.go
	case errors.Is(err, extsort.ErrInput):
		return &Error{Kind: ErrUnsupported, Msg: what, Err: err}
	}
	return &Error{Kind: ErrExec, Msg: what, Err: err}
}

// sortBudget lets the sort account its memory to the query's tracker:
// TryGrow is the tracker's grow (the sort spills when it fails), Grow
// charges what the sort cannot do without (past the limit if it must,
// after moving map outputs held in memory to disk: shuffle_held.go).
type sortBudget struct{ mt *memTracker }

func (b sortBudget) TryGrow(n int64) bool { return b.mt.grow(n, "ORDER BY") == nil }

func (b sortBudget) Grow(n int64) { b.mt.force(n) }

func (b sortBudget) Shrink(n int64) { b.mt.shrink(n) }

func (b sortBudget) Available() int64 {
	if b.mt.limit <= 0 {
		return math.MaxInt64 / 4
	}
	return b.mt.limit - b.mt.firm()
}
