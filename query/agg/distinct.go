package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// distinctState is count(DISTINCT x): one hash table over (group id, x)
// pairs for all groups, the same table as the group keys use, so a pair is
// hashed, probed and compared column-wise like a key and stored once. A new
// pair adds one to its group's count. The partial state is the group's
// distinct values as a list, which merge inserts again.
type distinctState struct {
	acct   *account
	dt     arrow.DataType
	counts []int64
	gidCol *fixedKeys[uint32]
	valCol keyColumn
	pairs  *table
	seed   uint64
	before int  // pairs before the current prepare
	added  bool // counts include the pairs since before

	h     []uint64 // scratch, per row
	out   []uint32 // scratch: pair ids, per row
	egids []uint32 // scratch for merge: group id per list element
	elems []uint32 // scratch for merge: list elements to insert
	order []uint32 // export scratch: pair ids by group
	start []int64  // export scratch: first index in order of each group
}

func newDistinct(a *account, dt arrow.DataType) *distinctState {
	s := &distinctState{acct: a, dt: dt, seed: newSeed()}
	s.gidCol = &fixedKeys[uint32]{acct: a, dt: arrow.PrimitiveTypes.Uint32, hashFn: hashInts[uint32]}
	s.valCol = newKeyColumn(a, dt)
	s.pairs = newTable(a, []keyColumn{s.gidCol, s.valCol})
	return s
}

func (s *distinctState) resize(n int) (err error) {
	s.counts, err = resizeStates(s.acct, s.counts, n, 0)
	return err
}

func (s *distinctState) prepare(gids []uint32, in *input) error {
	s.gidCol.bindValues(gids[:in.n])
	if err := s.valCol.bind(in.arr); err != nil {
		return err
	}
	return s.insert(in.n, in.rows)
}

// insert adds the pairs (gidCol[r], valCol[r]) for r in rows.
func (s *distinctState) insert(n int, rows []uint32) error {
	s.commit()
	var err error
	if s.h, err = scratch(s.acct, s.h, n); err != nil {
		return err
	}
	if s.out, err = scratch(s.acct, s.out, n); err != nil {
		return err
	}
	for _, r := range rows {
		s.h[r] = s.seed
	}
	s.gidCol.hash(s.h, rows)
	s.valCol.hash(s.h, rows)
	if err := s.pairs.insert(rows, s.h, s.out); err != nil {
		return err
	}
	for _, g := range s.gidCol.vals[s.before:] {
		s.counts[g]++
	}
	s.added = true
	return nil
}

// commit makes the pairs inserted so far permanent.
func (s *distinctState) commit() { s.before, s.added = s.pairs.groups(), false }

func (s *distinctState) update([]uint32, *input) { s.commit() }

func (s *distinctState) truncate(n int) {
	if n == 0 {
		s.pairs.truncate(0)
		s.counts = s.counts[:0]
		s.commit()
		return
	}
	if s.added {
		for _, g := range s.gidCol.vals[s.before:] {
			if int(g) < len(s.counts) {
				s.counts[g]--
			}
		}
	}
	s.pairs.truncate(s.before)
	s.counts = s.counts[:min(n, len(s.counts))]
	s.commit()
}

func (s *distinctState) prepareMerge(gids []uint32, ins []input) error {
	list := ins[0].arr.(*array.List)
	child := list.ListValues()
	var err error
	if s.egids, err = scratch(s.acct, s.egids, child.Len()); err != nil {
		return err
	}
	if s.elems, err = scratch(s.acct, s.elems, child.Len()); err != nil {
		return err
	}
	elems := s.elems[:0]
	for r := range list.Len() {
		lo, hi := list.ValueOffsets(r)
		for e := lo; e < hi; e++ {
			s.egids[e] = gids[r]
			elems = append(elems, uint32(e))
		}
	}
	s.gidCol.bindValues(s.egids)
	if err := s.valCol.bind(child); err != nil {
		return err
	}
	return s.insert(child.Len(), elems)
}

func (s *distinctState) merge([]uint32, []input) { s.commit() }

func (s *distinctState) partialTypes() []arrow.DataType { return []arrow.DataType{arrow.ListOf(s.dt)} }

// sortPairs fills order with the pair ids grouped by group id (a counting
// sort) and start with each group's first index in it.
func (s *distinctState) sortPairs() error {
	pairs := s.pairs.groups()
	if len(s.order) == pairs && len(s.start) == len(s.counts)+1 {
		return nil
	}
	var err error
	if s.order, err = scratch(s.acct, s.order, pairs); err != nil {
		return err
	}
	if s.start, err = scratch(s.acct, s.start, len(s.counts)+1); err != nil {
		return err
	}
	s.start[0] = 0
	for g, c := range s.counts {
		s.start[g+1] = s.start[g] + c
	}
	for p, g := range s.gidCol.vals { // start[g] walks to the end of group g
		s.order[s.start[g]] = uint32(p)
		s.start[g]++
	}
	copy(s.start[1:], s.start[:len(s.counts)]) // and back
	s.start[0] = 0
	return nil
}

func (s *distinctState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	if err := s.sortPairs(); err != nil {
		return nil, err
	}
	lo, hi := s.start[from], s.start[to]
	if hi-lo > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d distinct values in one batch; use fewer rows per batch", ErrMemoryLimit, hi-lo)
	}
	if sk, ok := s.valCol.(*stringKeys); ok {
		bytes := int64(0)
		for _, p := range s.order[lo:hi] {
			bytes += sk.varBytes(int(p), int(p)+1)
		}
		if bytes > math.MaxInt32 {
			return nil, fmt.Errorf("%w: %d bytes of distinct strings in one batch; use fewer rows per batch", ErrMemoryLimit, bytes)
		}
	}
	values := s.valCol.gather(mem, s.order[lo:hi])
	defer values.Release()
	offs := newFixedOut[int32](mem, arrow.PrimitiveTypes.Int32, to-from+1)
	for g := from; g <= to; g++ {
		offs.vals[g-from] = int32(s.start[g] - lo)
	}
	data := array.NewData(arrow.ListOf(s.dt), to-from, []*memory.Buffer{nil, offs.valBuf},
		[]arrow.ArrayData{values.Data()}, 0, 0)
	offs.valBuf.Release()
	defer data.Release()
	return []arrow.Array{array.MakeFromData(data)}, nil
}

// dropExportScratch frees what sortPairs held.
func (s *distinctState) dropExportScratch() {
	s.order = drop(s.acct, s.order)
	s.start = drop(s.acct, s.start)
}

func (s *distinctState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	return exportCounts(mem, s.counts[from:to]), nil
}

func (s *distinctState) release() {
	s.pairs.release()
	s.counts = drop(s.acct, s.counts)
	s.h = drop(s.acct, s.h)
	s.out = drop(s.acct, s.out)
	s.egids = drop(s.acct, s.egids)
	s.elems = drop(s.acct, s.elems)
	s.dropExportScratch()
}
