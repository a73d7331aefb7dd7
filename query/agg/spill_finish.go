package agg

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/sortkey"
)

// Finish ends the aggregation. h's groups, the last table, are sorted
// and kept in memory for the merge when the budget has room for them
// (else spilled like the others), and h is emptied and its memory freed
// (Shrink; the caller must not have it charged to the budget: Finish
// charges it while it sorts); runs are merged in
// passes, the oldest first, until one merge can read them all; and the
// returned reader yields the final groups (ResultSchema, in key order)
// as it merges them. The reader belongs to the Spiller: Close releases it
// too. On error, Close still cleans up.
func (s *Spiller) Finish(ctx context.Context, h *HashAggregator) (array.RecordReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, errSpillerClosed
	case s.reader != nil:
		return nil, fmt.Errorf("%w: Finish called twice", ErrInput)
	}
	if err := s.shape.check(h); err != nil {
		return nil, err
	}
	used := h.MemoryUsage()
	s.grow(used)
	err := s.keep(ctx, h)
	if err == nil {
		err = h.Shrink()
	}
	s.shrink(used)
	if err != nil {
		return nil, err
	}
	for {
		total, kept := len(s.runs), 0
		if total > 0 && s.runs[total-1].mem != nil {
			kept = 1
		}
		fanIn := s.fanIn()
		if total <= fanIn {
			break
		}
		k := min(fanIn, total-fanIn+1, total-kept)
		if err := s.mergePass(ctx, k); err != nil {
			return nil, err
		}
	}
	return s.openReader(ctx, h.ResultSchema())
}

// keep sorts h's groups into memory as the last run, or spills them
// when they would take more than half of what the budget has left.
func (s *Spiller) keep(ctx context.Context, h *HashAggregator) error {
	if len(s.shape.keyTypes) > 0 && h.Groups() == 0 {
		return nil
	}
	if b := s.cfg.Budget; b != nil && 2*h.MemoryUsage() > b.Available() {
		// The sorted copy is about as large as the table.
		start := time.Now()
		r, err := s.writeRun(ctx, func(emit emitFunc) error { return s.sortTable(ctx, h, emit) })
		if err != nil {
			return err
		}
		s.runs = append(s.runs, r)
		s.addMetrics(func(m *SpillMetrics) { m.Runs++; m.Time += time.Since(start) })
		return nil
	}
	r := &run{mem: make([][]arrow.RecordBatch, 1+len(s.shape.distinct))}
	err := s.sortTable(ctx, h, func(kind int, rec arrow.RecordBatch) error {
		rec.Retain()
		r.mem[kind] = append(r.mem[kind], rec)
		n := recordBytes(rec)
		r.memBytes += n
		s.grow(n)
		s.maxBytes[kind] = max(s.maxBytes[kind], n)
		return nil
	})
	if err != nil {
		s.dropRun(r)
		return err
	}
	var rows int64
	for _, rec := range r.mem[0] {
		rows += rec.NumRows()
	}
	s.addMetrics(func(m *SpillMetrics) { m.KeptRows += rows })
	s.runs = append(s.runs, r)
	return nil
}

// fanIn is how many runs one merge may read: FanIn, or fewer when three
// quarters of what the budget has left (the rest is for the operators
// that read the merge) have no room for a batch and its keys from each
// file of each run. Two runs are always merged, whatever the budget.
func (s *Spiller) fanIn() int {
	if s.cfg.Budget == nil {
		return s.cfg.FanIn
	}
	var perRun int64
	for k, b := range s.maxBytes {
		// What a cursor held, or until one was read, its batch and
		// keys, about as large (for pairs, keys and values too).
		if s.maxCursor[k] > 0 {
			perRun += s.maxCursor[k]
		} else {
			perRun += 3 * b
		}
	}
	// Room for the batch a merge gathers and the groups it combines.
	avail := s.cfg.Budget.Available()*3/4 - int64(2+3*s.cfg.ResultRows/s.cfg.BatchRows)*s.maxBytes[0]
	n := int64(s.cfg.FanIn)
	if perRun > 0 {
		n = min(n, avail/perRun)
	}
	return int(max(n, 2))
}

// mergePass merges the first k runs into one spilled run that takes
// their place at the end.
func (s *Spiller) mergePass(ctx context.Context, k int) error {
	start := time.Now()
	in := s.runs[:k]
	r, err := s.writeRun(ctx, func(emit emitFunc) error {
		if err := s.mergeMain(ctx, in, emit); err != nil {
			return err
		}
		for d := range s.shape.distinct {
			if err := s.mergePairs(ctx, in, d, emit); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, old := range in {
		s.dropRun(old)
	}
	rest := append([]*run(nil), s.runs[k:]...)
	// The run kept in memory stays last.
	if n := len(rest); n > 0 && rest[n-1].mem != nil {
		rest = append(rest[:n-1], r, rest[n-1])
	} else {
		rest = append(rest, r)
	}
	s.runs = rest
	s.addMetrics(func(m *SpillMetrics) { m.MergePasses++; m.MergeTime += time.Since(start) })
	return nil
}

// mergeReader is the final merge: it combines the groups of every run
// batch by batch and adds the distinct counts, as its batches are read.
type mergeReader struct {
	s      *Spiller
	ctx    context.Context
	schema *arrow.Schema
	main   *merger
	dist   []*merger
	refs   atomic.Int64

	gkeys   sortkey.Rows // keys of the groups in pending, in order
	gk      int          // the first of them not yet in a returned batch
	pending []arrow.RecordBatch
	prev    []byte
	cur     arrow.RecordBatch
	err     error
	done    bool
	closed  bool
}

func (s *Spiller) openReader(ctx context.Context, schema *arrow.Schema) (*mergeReader, error) {
	r := &mergeReader{s: s, ctx: ctx, schema: schema}
	r.refs.Store(1)
	var err error
	if r.main, err = s.openMerge(s.runs, 0); err != nil {
		return nil, err
	}
	for d := range s.shape.distinct {
		m, err := s.openMerge(s.runs, 1+d)
		if err != nil {
			r.close()
			return nil, err
		}
		r.dist = append(r.dist, m)
	}
	s.reader = r
	return r, nil
}

func (r *mergeReader) Schema() *arrow.Schema          { return r.schema }
func (r *mergeReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch (kept for array.RecordReader).
func (r *mergeReader) Record() arrow.RecordBatch { return r.cur }
func (r *mergeReader) Err() error                { return r.err }
func (r *mergeReader) Retain()                   { r.refs.Add(1) }

func (r *mergeReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.close()
	}
}

func (r *mergeReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.closed {
		return false
	}
	if len(r.pending) == 0 {
		if r.done {
			return false
		}
		if r.err = r.fill(); r.err != nil || len(r.pending) == 0 {
			return false
		}
	}
	rec := r.pending[0]
	r.pending = r.pending[1:]
	r.cur, r.err = r.finish(rec)
	rec.Release()
	return r.err == nil
}

// fill combines the next batch of groups and computes their final values.
func (r *mergeReader) fill() error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	s := r.s
	r.gkeys.Reset()
	r.gk = 0
	more, err := s.combine(r.ctx, r.main, s.cfg.ResultRows, &r.gkeys)
	if err != nil {
		return err
	}
	if !more {
		r.done = true
		return nil
	}
	if len(s.shape.keyTypes) == 0 {
		r.done = true // one global group
	}
	if r.pending, err = s.merge.Result(s.cfg.ResultRows); err != nil {
		return err
	}
	return s.resetMerge()
}

// finish makes the output batch of a batch of the merge aggregator's
// result: the keys, then each spec's column, the distinct counts computed
// from the pair merges.
func (r *mergeReader) finish(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sh := r.s.shape
	nk := len(sh.keyTypes)
	n := int(rec.NumRows())
	counts := make([]arrow.Array, len(r.dist))
	defer func() { releaseAll(counts) }()
	for d, m := range r.dist {
		out := newFixedOut[int64](r.s.mem, arrow.PrimitiveTypes.Int64, n)
		for i := range n {
			c, err := m.countDistinct(r.gkeys.Row(r.gk+i), &r.prev)
			if err != nil {
				out.finish().Release()
				return nil, err
			}
			out.vals[i] = c
		}
		counts[d] = out.finish()
	}
	r.gk += n
	cols := make([]arrow.Array, 0, r.schema.NumFields())
	cols = append(cols, rec.Columns()[:nk]...)
	for _, o := range sh.out {
		if o >= 0 {
			cols = append(cols, rec.Column(nk+o))
		} else {
			cols = append(cols, counts[-1-o])
		}
	}
	return array.NewRecordBatch(r.schema, cols, int64(n)), nil
}

// close releases what the reader holds; the Spiller removes the files.
func (r *mergeReader) close() {
	if r.closed {
		return
	}
	r.closed = true
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	releaseRecords(r.pending)
	r.pending = nil
	if r.main != nil {
		r.main.close()
	}
	for _, m := range r.dist {
		m.close()
	}
}
