package agg

import (
	"context"
	"fmt"
	"math"

	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/sortkey"
)

// combine merges the next groups of main into s.merge, up to about
// limit groups (fewer at the end), and with a Budget up to about half of
// what it has left when combine starts: a group's states can be large
// (approx_count_distinct's sketch is 4 KiB), so that a count of groups
// alone let the merge aggregator hold 2,048 groups, 6.8 MB, within a
// 2 MiB limit. The combine of equal keys is the states' own merge (counts
// and sums add, min and max compare). gkeys gets the groups' keys, in the
// order of the merge aggregator's groups. It reports false when main is
// done.
func (s *Spiller) combine(ctx context.Context, main *merger, limit int, gkeys *sortkey.Rows) (bool, error) {
	maxBytes := int64(math.MaxInt64)
	if b := s.cfg.Budget; b != nil {
		maxBytes = s.mergeHeld + max(b.Available()/2, 0)
	}
	merged := false
	var step int64 // what the last batch added: the next may add as much
	for (s.merge.Groups() < limit && (!merged || s.mergeHeld+step <= maxBytes)) || len(s.shape.keyTypes) == 0 {
		before := s.mergeHeld
		// Whole groups, so that the merge aggregator combines each
		// group's partial states in one batch.
		rec, err := main.Next(ctx, s.cfg.BatchRows, extsort.TiesTogether, gkeys)
		if err != nil || rec == nil {
			return merged, tooLarge(err)
		}
		err = s.merge.Merge(rec)
		rec.Release()
		s.chargeMerge()
		if err != nil {
			return merged, err
		}
		merged, step = true, s.mergeHeld-before
	}
	return merged, nil
}

// resetMerge empties the merge aggregator.
func (s *Spiller) resetMerge() error {
	err := s.merge.Reset()
	s.chargeMerge()
	return err
}

// chargeMerge keeps the budget charged for what the merge aggregator
// holds.
func (s *Spiller) chargeMerge() {
	now := s.merge.MemoryUsage()
	s.charge(now - s.mergeHeld)
	s.mergeHeld = now
}

// mergeMain merges the partial states of runs into emit, as kind 0.
func (s *Spiller) mergeMain(ctx context.Context, runs []*run, emit emitFunc) error {
	m, err := s.openMerge(runs, 0)
	if err != nil {
		return err
	}
	defer m.close()
	var gkeys sortkey.Rows
	for {
		gkeys.Reset()
		more, err := s.combine(ctx, m, s.cfg.BatchRows, &gkeys)
		if err != nil || !more {
			return err
		}
		parts, err := s.merge.Partial(s.cfg.BatchRows)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if err == nil {
				err = emit(0, p)
			}
			p.Release()
		}
		if err != nil {
			return err
		}
		if err := s.resetMerge(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// mergePairs merges the pairs of distinct state d of runs into emit,
// each pair once, as kind 1+d.
func (s *Spiller) mergePairs(ctx context.Context, runs []*run, d int, emit emitFunc) error {
	m, err := s.openMerge(runs, 1+d)
	if err != nil {
		return err
	}
	defer m.close()
	for {
		rec, err := m.Next(ctx, s.cfg.BatchRows, extsort.TiesFirst, nil)
		if err != nil || rec == nil {
			return tooLarge(err)
		}
		err = emit(1+d, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// openMerge opens a merge of file kind of runs (0: partial states,
// 1+d: pairs of distinct state d).
func (s *Spiller) openMerge(runs []*run, kind int) (*merger, error) {
	var srcs []extsort.Source
	var names []string
	for _, r := range runs {
		if r.mem != nil {
			srcs = append(srcs, &memSource{recs: r.mem[kind]})
			names = append(names, "the groups kept in memory")
			continue
		}
		f := r.main
		if kind > 0 {
			f = r.distinct[kind-1]
		}
		rd, err := f.Open(s.mem)
		if err != nil {
			for _, src := range srcs {
				src.Release()
			}
			return nil, fmt.Errorf("agg: opening spilled run %s: %w", f.Path(), err)
		}
		srcs = append(srcs, rd)
		names = append(names, f.Path())
	}
	return s.newMerger(srcs, names, kind)
}
