package agg

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/extsort"
)

// memSource reads batches kept in memory; it does not own them.
type memSource struct {
	recs []arrow.RecordBatch
	i    int
}

func (m *memSource) Next() bool {
	if m.i >= len(m.recs) {
		return false
	}
	m.i++
	return true
}

func (m *memSource) RecordBatch() arrow.RecordBatch { return m.recs[m.i-1] }
func (m *memSource) Err() error                     { return nil }
func (m *memSource) Release()                       {}

// merger is a merge of one file kind of the runs (0: partial states, 1+d:
// pairs of distinct state d): extsort's Merge, ordered by the group keys
// (NULL last), in a merge of pairs by the keys and then the value, a tie
// to the earlier run. Its group key is the group's keys.
type merger struct {
	*extsort.Merge
	s    *Spiller
	kind int
}

// newMerger opens a merge of srcs (named for errors) of file kind. It
// owns srcs; on error everything is released.
func (s *Spiller) newMerger(srcs []extsort.Source, names []string, kind int) (*merger, error) {
	nk := len(s.shape.keyTypes)
	schema, nkeys := s.shape.mainSchema, nk
	if kind > 0 {
		schema, nkeys = s.shape.distSchemas[kind-1], nk+1
	}
	keys := make([]extsort.Key, nkeys)
	for i := range keys {
		keys[i] = extsort.Key{Col: i}
	}
	m, err := extsort.NewMerge(extsort.MergeConfig{
		Schema: schema, Keys: keys, GroupKeys: nk, Mem: s.mem, Charge: s.charge,
	}, srcs, names)
	if err != nil {
		return nil, fmt.Errorf("agg: merging spilled runs: %w", err)
	}
	return &merger{Merge: m, s: s, kind: kind}, nil
}

// close releases the merge, keeping what its cursors held at most for
// fanIn.
func (m *merger) close() {
	m.s.maxCursor[m.kind] = max(m.s.maxCursor[m.kind], m.CursorBytes())
	m.Close()
}

// countDistinct consumes the pairs of group key gk, the smallest group
// key left, and returns how many distinct values they hold. Equal pairs
// (the same value of the group in several runs) are adjacent in the
// merge and count once.
func (m *merger) countDistinct(gk []byte, prev *[]byte) (int64, error) {
	var n int64
	for m.Head() {
		switch bytes.Compare(m.GroupKey(), gk) {
		case 1:
			return n, nil
		case -1:
			// Every pair's group is in the same run's partial states.
			panic("agg: a spilled run holds a count(DISTINCT) value of a group no run has")
		}
		f := m.Key()
		if n == 0 || !bytes.Equal(f, *prev) {
			n++
			*prev = append((*prev)[:0], f...)
		}
		if err := m.Skip(); err != nil {
			return 0, tooLarge(err)
		}
	}
	return n, nil
}

// charge keeps the budget charged for what merges hold.
func (s *Spiller) charge(n int64) {
	if n > 0 {
		s.grow(n)
	} else {
		s.shrink(-n)
	}
}

// newRecord makes a batch of cols and releases the caller's references.
func newRecord(schema *arrow.Schema, cols []arrow.Array, rows int) arrow.RecordBatch {
	rec := array.NewRecordBatch(schema, cols, int64(rows))
	releaseAll(cols)
	return rec
}
