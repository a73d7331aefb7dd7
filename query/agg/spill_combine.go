package agg

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// nextGroups picks head rows in key order until at least limit rows are
// picked and the next row starts a new group, so that a group never
// straddles two gathers. gkeys gets the key of each new group. It
// returns the rows picked (0: every run is done).
func (m *merger) nextGroups(limit int, gkeys *sortkey.Rows) (int, error) {
	for {
		c := m.head()
		if c == nil {
			break
		}
		k := c.keys.Row(c.pos)
		if n := gkeys.Len(); n == 0 || !bytes.Equal(k, gkeys.Row(n-1)) {
			if len(m.picks) >= limit {
				break
			}
			gkeys.Append(k)
		}
		m.pick(c)
		if err := m.advance(); err != nil {
			return 0, err
		}
	}
	return len(m.picks), nil
}

// countDistinct consumes the pairs of group key gk, the smallest group
// key left, and returns how many distinct values they hold. Equal pairs
// (the same value of the group in several runs) are adjacent in the
// merge and count once.
func (m *merger) countDistinct(gk []byte, prev *[]byte) (int64, error) {
	var n int64
	for {
		c := m.head()
		if c == nil {
			return n, nil
		}
		switch bytes.Compare(c.keys.Row(c.pos), gk) {
		case 1:
			return n, nil
		case -1:
			// Every pair's group is in the same run's partial states.
			panic(fmt.Sprintf("agg: spilled run %s holds a count(DISTINCT) value of a group no run has", c.name))
		}
		f := c.full.Row(c.pos)
		if n == 0 || !bytes.Equal(f, *prev) {
			n++
			*prev = append((*prev)[:0], f...)
		}
		if err := m.advance(); err != nil {
			return 0, err
		}
	}
}

// combine merges the next groups of main into s.merge, up to about
// limit groups (fewer at the end); gkeys gets their keys, in the order of
// the merge aggregator's groups. It reports false when main is done.
func (s *Spiller) combine(main *merger, limit int, gkeys *sortkey.Rows) (bool, error) {
	merged := false
	for s.merge.Groups() < limit || len(s.shape.keyTypes) == 0 {
		n, err := main.nextGroups(s.cfg.BatchRows, gkeys)
		if err != nil || n == 0 {
			return merged, err
		}
		rec, err := main.gather(s.shape.mainSchema)
		if err != nil {
			return merged, err
		}
		err = s.merge.Merge(rec)
		rec.Release()
		s.chargeMerge()
		if err != nil {
			return merged, err
		}
		merged = true
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
	if now > s.mergeHeld {
		s.grow(now - s.mergeHeld)
	} else {
		s.shrink(s.mergeHeld - now)
	}
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
		more, err := s.combine(m, s.cfg.BatchRows, &gkeys)
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
	schema := s.shape.distSchemas[d]
	var prev []byte
	first := true
	flush := func() error {
		if len(m.picks) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := m.gather(schema)
		if err != nil {
			return err
		}
		defer rec.Release()
		return emit(1+d, rec)
	}
	for c := m.head(); c != nil; c = m.head() {
		if f := c.full.Row(c.pos); first || !bytes.Equal(f, prev) {
			first = false
			prev = append(prev[:0], f...)
			m.pick(c)
		}
		if err := m.advance(); err != nil {
			return err
		}
		if len(m.picks) >= s.cfg.BatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// openMerge opens a merge of file kind of runs (0: partial states,
// 1+d: pairs of distinct state d).
func (s *Spiller) openMerge(runs []*run, kind int) (*merger, error) {
	var srcs []source
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
	var val arrow.DataType
	if kind > 0 {
		val = s.shape.distSchemas[kind-1].Field(len(s.shape.keyTypes)).Type
	}
	return s.newMerger(srcs, names, kind, val)
}
