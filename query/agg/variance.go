package agg

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The variance family — var_samp, var_pop, stddev_samp, stddev_pop over
// float64 — keeps per group the count, the mean and the sum of squared
// deviations from it (Welford's update, numerically stable where the sum
// of squares is not), as DuckDB does; groups combine by Chan's parallel
// formula. The four share one state per argument. The partial state is
// (count int64, mean float64, m2 float64). A sample variance of fewer than
// two values and any variance of none is NULL.

type moments struct {
	n        int64
	mean, m2 float64
}

func (m *moments) add(v float64) {
	m.n++
	d := v - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (v - m.mean)
}

func (m *moments) combine(n int64, mean, m2 float64) {
	if n == 0 {
		return
	}
	if m.n == 0 {
		m.n, m.mean, m.m2 = n, mean, m2
		return
	}
	total := m.n + n
	d := mean - m.mean
	m.m2 += m2 + d*d*float64(m.n)*float64(n)/float64(total)
	m.mean += d * float64(n) / float64(total)
	m.n = total
}

type varianceState struct {
	noPrepare
	acct *account
	st   []moments
}

func (s *varianceState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, moments{})
	return err
}

func (s *varianceState) update(gids []uint32, in *input) {
	vals, st := in.arr.(*array.Float64).Float64Values(), s.st
	if in.dense {
		gids = gids[:len(vals)]
		for r, v := range vals {
			st[gids[r]].add(v)
		}
		return
	}
	for _, r := range in.rows {
		st[gids[r]].add(vals[r])
	}
}

func (s *varianceState) merge(gids []uint32, ins []input) {
	counts := ins[0].arr.(*array.Int64).Int64Values()
	means := ins[1].arr.(*array.Float64).Float64Values()
	m2s := ins[2].arr.(*array.Float64).Float64Values()
	for r, n := range counts {
		s.st[gids[r]].combine(n, means[r], m2s[r])
	}
}

func (s *varianceState) truncate(n int) { s.st = s.st[:min(n, len(s.st))] }

func (s *varianceState) partialTypes() []arrow.DataType {
	return []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64}
}

func (s *varianceState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	counts := make([]int64, to-from)
	means := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
	m2s := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
	for i, m := range s.st[from:to] {
		counts[i], means.vals[i], m2s.vals[i] = m.n, m.mean, m.m2
	}
	return []arrow.Array{exportCounts(mem, counts), means.finish(), m2s.finish()}, nil
}

func (s *varianceState) result(mem memory.Allocator, f Func, _ string, from, to int) (arrow.Array, error) {
	out := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
	sample := f == VarSamp || f == StddevSamp
	for i, m := range s.st[from:to] {
		div := m.n
		if sample {
			div--
		}
		if div <= 0 || m.n == 0 {
			out.setNull(i)
			continue
		}
		v := m.m2 / float64(div)
		if f == StddevSamp || f == StddevPop {
			v = math.Sqrt(v)
		}
		out.vals[i] = v
	}
	return out.finish(), nil
}

func (s *varianceState) release() { s.st = drop(s.acct, s.st) }
