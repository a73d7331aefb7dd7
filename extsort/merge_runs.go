package extsort

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// merger is a Sorter's merge of its runs: TiesSplit batches of BatchRows
// rows, the first Limit rows with a Limit.
type merger struct {
	m    *Merge
	s    *Sorter
	left int64 // rows still to hand out with a Limit; -1 all
}

// newMerger merges srcs, in input order, and owns them: closing the
// merger releases them. It returns with each source's first batch read;
// on error everything is released.
func (s *Sorter) newMerger(srcs []Source, names []string, workers int) (*merger, error) {
	m, err := NewMerge(MergeConfig{
		Schema: s.schema, Keys: s.cfg.Keys, Mem: s.cfg.Mem, Workers: workers,
		Charge: func(n int64) { s.acct.resize(0, n) },
	}, srcs, names)
	if err != nil {
		return nil, err
	}
	mg := &merger{m: m, s: s, left: -1}
	if s.topK() {
		mg.left = s.cfg.Limit
	}
	return mg, nil
}

// openMerge opens a merge of runs, then of mems (which come after them in
// input order), each read ahead on a goroutine; workers goroutines
// interleave its output batches. The merger reads runs but does not own
// them; it owns mems.
func (s *Sorter) openMerge(ctx context.Context, runs []*run, mems []*memRun, workers int) (*merger, error) {
	var srcs []Source
	var names []string
	for _, r := range runs {
		rd, err := r.file.Open(s.cfg.Mem)
		if err != nil {
			for _, x := range srcs {
				x.Release()
			}
			for _, m := range mems {
				m.Release()
			}
			return nil, fmt.Errorf("extsort: opening run %s: %w", r.file.Path(), err)
		}
		srcs = append(srcs, newPrefetch(rd))
		names = append(names, r.file.Path())
	}
	for _, m := range mems {
		srcs = append(srcs, newPrefetch(m))
		names = append(names, "rows kept in memory")
	}
	m, err := s.newMerger(srcs, names, workers)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// next returns the next merged batch of up to BatchRows rows, or nil at
// the end. The reader checks the context.
func (m *merger) next() (arrow.RecordBatch, error) {
	want := m.s.cfg.BatchRows
	if m.left >= 0 {
		want = int(min(int64(want), m.left))
	}
	rec, err := m.m.Next(context.Background(), want, TiesSplit, nil)
	if rec != nil && m.left >= 0 {
		m.left -= rec.NumRows()
	}
	return rec, err
}

func (m *merger) close() { m.m.Close() }

// fanIn is how many runs one merge reads at once: MaxOpenFiles, fewer
// when the memory limit does not hold a read buffer for each (never fewer
// than 2).
func (s *Sorter) fanIn() int {
	var per int64
	for _, r := range s.runs {
		per = max(per, r.readBytes())
	}
	f := s.cfg.MaxOpenFiles
	if per > 0 {
		f = int(min(int64(f), s.acct.b.Available()/per))
	}
	return max(f, 2)
}

// mergePasses merges runs until one merge can read all that are left
// (its share of one, when FinishRuns said several sorters' runs meet in
// one merge). Only neighbours are merged, into the place of the first, so
// the runs stay in input order and ties keep it. When a few merges of f
// runs at the front bring the count down to the target, only those are
// done; otherwise a full pass merges every group of f, so each pass
// divides the runs by f and every row is rewritten log_f(runs) times, not
// once per merge.
func (s *Sorter) mergePasses(ctx context.Context) error {
	for {
		f := s.fanIn()
		t := max(min(f, s.cfg.MaxOpenFiles/max(s.parts, 1)), 2) // the runs one merge may read of this sorter
		n := len(s.runs)
		if n <= t {
			return nil
		}
		groups := (n - t + f - 2) / (f - 1) // merges of f that bring n to t
		if groups*f > n {
			groups = (n + f - 1) / f // a full pass
		}
		var next []*run
		for g := range groups {
			lo, hi := g*f, min(g*f+f, n)
			if hi-lo == 1 {
				next = append(next, s.runs[lo])
				continue
			}
			merged, err := s.mergeRuns(ctx, s.runs[lo:hi])
			if err != nil {
				return err
			}
			s.removeRuns(s.runs[lo:hi])
			// Keep s.runs owning every file not yet removed.
			for i := lo; i < hi; i++ {
				s.runs[i] = nil
			}
			s.runs[lo] = merged
			next = append(next, merged)
		}
		next = append(next, s.runs[min(groups*f, n):]...)
		s.runs = next
		s.metrics.MergePasses++
	}
}

// mergeRuns merges runs into a new run.
func (s *Sorter) mergeRuns(ctx context.Context, runs []*run) (*run, error) {
	m, err := s.openMerge(ctx, runs, nil, s.cfg.Workers)
	if err != nil {
		return nil, err
	}
	defer m.close()
	rw, err := s.newRun()
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			rw.abort()
			return nil, err
		}
		rec, err := m.next()
		if err != nil {
			rw.abort()
			return nil, err
		}
		if rec == nil {
			break
		}
		// The merged batch's keys are not at hand; its inputs' bound it.
		if err := rw.write(rec, maxKeyBytes(runs)); err != nil {
			rw.abort()
			return nil, err
		}
	}
	return rw.finish()
}

func maxKeyBytes(runs []*run) int64 {
	var n int64
	for _, r := range runs {
		n = max(n, r.maxKeyBytes)
	}
	return n
}
