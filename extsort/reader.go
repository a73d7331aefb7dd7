package extsort

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

var _ array.RecordReader = (*mergeReader)(nil)

// mergeReader streams the sorted output: the final merge of spilled runs
// (and the rows kept in memory), or, when nothing was spilled, the sorted
// buffer; for Gather, of several sorters' runs.
type mergeReader struct {
	s      *Sorter
	others []*Sorter // Gather's sorters but s, whose accounts it closes too
	ctx    context.Context
	m      *merger // a merge of runs on disk or of parts sorted in memory
	mem    *memRun // or the one sorted part, when that is all
	runs   []*run
	cur    arrow.RecordBatch
	err    error
	refs   atomic.Int64
	done   bool
}

func (r *mergeReader) Schema() *arrow.Schema          { return r.s.schema }
func (r *mergeReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch.
func (r *mergeReader) Record() arrow.RecordBatch { return r.cur }
func (r *mergeReader) Err() error                { return r.err }
func (r *mergeReader) Retain()                   { r.refs.Add(1) }

// Metrics returns the sort's metrics.
func (r *mergeReader) Metrics() Metrics { return r.s.Metrics() }

func (r *mergeReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
		return false
	}
	var rec arrow.RecordBatch
	var err error
	if r.m != nil {
		rec, err = r.m.next()
	} else if r.mem.Next() {
		rec = r.mem.RecordBatch()
		rec.Retain()
	} else {
		err = r.mem.Err()
	}
	if err != nil {
		r.fail(err)
		return false
	}
	if rec == nil {
		r.finish()
		return false
	}
	r.cur = rec
	r.s.metrics.OutputRows += rec.NumRows()
	return true
}

func (r *mergeReader) fail(err error) {
	r.err = err
	r.finish()
}

// finish closes the merge and removes the runs as soon as the last batch
// is out (or the merge failed).
func (r *mergeReader) finish() {
	if r.done {
		return
	}
	r.done = true
	if r.m != nil {
		r.m.close()
	} else {
		r.mem.Release()
	}
	r.s.removeRuns(r.runs)
	r.runs = nil
	r.s.acct.close()
	for _, s := range r.others {
		s.acct.close()
	}
}

func (r *mergeReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.finish()
}
