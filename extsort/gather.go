package extsort

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// A parallel sort: each of several workers adds what it receives to a
// Sorter of its own and ends it with FinishRuns, which sorts its buffer
// (and spills, and merges runs in passes, as Finish would) on the
// worker's goroutine; Gather then merges every sorter's runs, on disk and
// in memory, in one merge (Merge, the loser tree the runs of one sorter
// are merged with), so each row is merged once whatever worker sorted
// it.
//
//	worker 1: Add … FinishRuns ─► runs 1a, 1b (disk), 1c (memory) ─┐
//	worker 2: Add … FinishRuns ─► runs 2a (memory)                 ├─► Gather: one merge ─► sorted batches
//	   …                                                           ┘
//
// Each sorter should have a Budget of its share of the memory (a worker
// that holds its share spills, whatever the others hold, so runs are of
// about one size); they share the merge's files: FinishRuns(ctx, parts)
// leaves each sorter's runs at most a 1/parts share of MaxOpenFiles.
// Ties between sorters go to the earlier sorter in Gather's list, not to
// the input order: a parallel sort is not stable (each sorter still is).
// With a Limit, each sorter keeps its first Limit rows and the merge
// hands out the first Limit of them all.

// FinishRuns ends the input of a sorter whose rows Gather will merge with
// those of parts-1 others: it sorts what is buffered into the runs of the
// final merge, on the caller's goroutine. On error the sorter is cleaned
// up as Close does.
func (s *Sorter) FinishRuns(ctx context.Context, parts int) error {
	if s.finished || s.closed {
		return errors.New("extsort: FinishRuns after Finish or Close")
	}
	s.finished = true
	s.parts = max(parts, 1)
	mems, err := s.prepare(ctx)
	if err != nil {
		s.Close()
		return err
	}
	s.mems = mems
	return nil
}

// Gather merges the rows of sorters, each ended by FinishRuns, into one
// sorted stream (the first Limit rows of them all, with a Limit): they
// must share the schema, Keys and Limit. workers goroutines interleave
// its output batches (0: the first sorter's Config.Workers). The reader
// owns everything the sorters held: releasing it frees their memory and
// removes their files; the sorters must still be closed, which then does
// nothing. On error, Gather closes every sorter.
func Gather(ctx context.Context, sorters []*Sorter, workers int) (array.RecordReader, error) {
	fail := func(err error) (array.RecordReader, error) {
		for _, s := range sorters {
			s.Close()
		}
		return nil, err
	}
	if len(sorters) == 0 {
		return nil, fmt.Errorf("%w: Gather of no sorters", ErrInput)
	}
	s := sorters[0]
	var runs []*run
	var mems []*memRun
	for i, x := range sorters {
		switch {
		case !x.finished || x.closed || x.handedOff:
			return fail(fmt.Errorf("extsort: Gather of sorter %d: not ended by FinishRuns, or closed", i))
		case !x.schema.Equal(s.schema) || !sameKeys(x.cfg.Keys, s.cfg.Keys) || x.cfg.Limit != s.cfg.Limit:
			return fail(fmt.Errorf("%w: Gather of sorter %d: its schema, keys or limit differ from sorter 0's", ErrInput, i))
		}
		runs = append(runs, x.runs...)
		mems = append(mems, x.mems...)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if workers <= 0 {
		workers = s.cfg.Workers
	}
	// read's merge owns the parts from here: on error it has released
	// them, and Close must not again.
	for _, x := range sorters {
		x.mems = nil
	}
	r, err := s.read(ctx, sorters[1:], runs, mems, workers)
	if err != nil {
		return fail(err)
	}
	return r, nil
}

func sameKeys(a, b []Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// SumMetrics adds up the metrics of the sorters of a parallel sort.
func SumMetrics(sorters []*Sorter) Metrics {
	var m Metrics
	for _, s := range sorters {
		x := s.Metrics()
		m.InputRows += x.InputRows
		m.OutputRows += x.OutputRows
		m.Runs += x.Runs
		m.SpillFiles += x.SpillFiles
		m.SpilledBytes += x.SpilledBytes
		m.SpilledRows += x.SpilledRows
		m.SpillTime += x.SpillTime
		m.RowsKept += x.RowsKept
		m.MergePasses += x.MergePasses
		m.Compactions += x.Compactions
		m.PeakMemory += x.PeakMemory
	}
	return m
}
