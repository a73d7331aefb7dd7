package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countState is count(*) (star: every row) and count(x) (rows with a
// value). Its partial state is the count itself.
type countState struct {
	noPrepare
	acct   *account
	star   bool
	counts []int64
}

func (s *countState) resize(n int) (err error) {
	s.counts, err = resizeStates(s.acct, s.counts, n, 0)
	return err
}

func (s *countState) update(gids []uint32, in *input) {
	c := s.counts
	if s.star || in.dense {
		for _, g := range gids[:in.n] {
			c[g]++
		}
		return
	}
	for _, r := range in.rows {
		c[gids[r]]++
	}
}

func (s *countState) truncate(n int) { s.counts = s.counts[:min(n, len(s.counts))] }

func (s *countState) partialTypes() []arrow.DataType {
	return []arrow.DataType{arrow.PrimitiveTypes.Int64}
}

func (s *countState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	a, err := s.result(mem, 0, "", from, to)
	return []arrow.Array{a}, err
}

func (s *countState) merge(gids []uint32, ins []input) {
	c := s.counts
	for r, v := range ins[0].arr.(*array.Int64).Int64Values() {
		c[gids[r]] += v
	}
}

func (s *countState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	return exportCounts(mem, s.counts[from:to]), nil
}

func (s *countState) release() { s.counts = drop(s.acct, s.counts) }

func exportCounts(mem memory.Allocator, counts []int64) arrow.Array {
	out := newFixedOut[int64](mem, arrow.PrimitiveTypes.Int64, len(counts))
	copy(out.vals, counts)
	return out.finish()
}
