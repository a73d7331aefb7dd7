package agg

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Sums and averages keep a sum and a count of the values in it (count 0
// means NULL). Integer sums are kept in 128 bits and decimal sums in 192
// (128 when the precision is at most 18), so no batch order can overflow
// them on the way: sum(int64) fails only if the final value does not fit
// in int64 (and sum(decimal) if it does not fit in 38 digits), whatever
// order the rows came in. The partial state is (sum, count):
// Decimal128(38,s) for int64 (s = 0) and decimals of precision ≤ 18,
// Decimal256(76,s) for wider decimals, Float64 for floats.

// sumIntState is sum and avg over int64, and over decimals of precision at
// most 18, whose values are their low words: 2^63 rows of them cannot
// pass 2^123.
type sumIntState struct {
	noPrepare
	acct *account
	dec  *arrow.Decimal128Type // nil: int64
	st   []int128
}

type int128 struct {
	lo uint64
	hi int64
	n  int64
}

func (a *int128) add(v int64) {
	lo, c := bits.Add64(a.lo, uint64(v), 0)
	a.lo, a.hi, a.n = lo, a.hi+v>>63+int64(c), a.n+1
}

func (s *sumIntState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, int128{})
	return err
}

func (s *sumIntState) update(gids []uint32, in *input) {
	st := s.st
	if s.dec != nil {
		vals := in.arr.(*array.Decimal128).Values()
		if in.dense {
			gids = gids[:len(vals)]
			for r, v := range vals {
				st[gids[r]].add(int64(v.LowBits()))
			}
			return
		}
		for _, r := range in.rows {
			st[gids[r]].add(int64(vals[r].LowBits()))
		}
		return
	}
	vals := in.arr.(*array.Int64).Int64Values()
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

func (s *sumIntState) merge(gids []uint32, ins []input) {
	sums, counts := ins[0].arr.(*array.Decimal128).Values(), ins[1].arr.(*array.Int64).Int64Values()
	for r, v := range sums {
		a := &s.st[gids[r]]
		lo, c := bits.Add64(a.lo, v.LowBits(), 0)
		a.lo, a.hi, a.n = lo, a.hi+v.HighBits()+int64(c), a.n+counts[r]
	}
}

func (s *sumIntState) truncate(n int) { s.st = s.st[:min(n, len(s.st))] }

func (s *sumIntState) scale() int32 {
	if s.dec == nil {
		return 0
	}
	return s.dec.Scale
}

func (s *sumIntState) partialTypes() []arrow.DataType {
	return []arrow.DataType{&arrow.Decimal128Type{Precision: 38, Scale: s.scale()}, arrow.PrimitiveTypes.Int64}
}

func (s *sumIntState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	sums := newFixedOut[decimal128.Num](mem, s.partialTypes()[0], to-from)
	counts := make([]int64, to-from)
	for i, a := range s.st[from:to] {
		sums.vals[i] = decimal128.New(a.hi, a.lo)
		counts[i] = a.n
	}
	return []arrow.Array{sums.finish(), exportCounts(mem, counts)}, nil
}

func (s *sumIntState) result(mem memory.Allocator, f Func, name string, from, to int) (arrow.Array, error) {
	if f == Avg {
		out := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
		for i, a := range s.st[from:to] {
			if a.n == 0 {
				out.setNull(i)
				continue
			}
			out.vals[i] = decimal128.New(a.hi, a.lo).ToFloat64(s.scale()) / float64(a.n)
		}
		return out.finish(), nil
	}
	if s.dec != nil {
		out := newFixedOut[decimal128.Num](mem, &arrow.Decimal128Type{Precision: 38, Scale: s.dec.Scale}, to-from)
		for i, a := range s.st[from:to] {
			if a.n == 0 {
				out.setNull(i)
				continue
			}
			out.vals[i] = decimal128.New(a.hi, a.lo) // < 2^123 < 10^38: fits
		}
		return out.finish(), nil
	}
	out := newFixedOut[int64](mem, arrow.PrimitiveTypes.Int64, to-from)
	for i, a := range s.st[from:to] {
		if a.n == 0 {
			out.setNull(i)
			continue
		}
		if a.hi != int64(a.lo)>>63 {
			out.finish().Release()
			return nil, fmt.Errorf("%w: %s of group %d is %s, out of range for int64",
				ErrOverflow, name, from+i, decimal128.New(a.hi, a.lo).BigInt())
		}
		out.vals[i] = int64(a.lo)
	}
	return out.finish(), nil
}

func (s *sumIntState) release() { s.st = drop(s.acct, s.st) }

// sumFloatState is sum(float64) and avg(float64).
type sumFloatState struct {
	noPrepare
	acct *account
	st   []floatSum
}

type floatSum struct {
	sum float64
	n   int64
}

func (s *sumFloatState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, floatSum{})
	return err
}

func (s *sumFloatState) update(gids []uint32, in *input) {
	vals, st := in.arr.(*array.Float64).Float64Values(), s.st
	if in.dense {
		gids = gids[:len(vals)]
		for r, v := range vals {
			a := &st[gids[r]]
			a.sum += v
			a.n++
		}
		return
	}
	for _, r := range in.rows {
		a := &st[gids[r]]
		a.sum += vals[r]
		a.n++
	}
}

func (s *sumFloatState) merge(gids []uint32, ins []input) {
	sums, counts := ins[0].arr.(*array.Float64).Float64Values(), ins[1].arr.(*array.Int64).Int64Values()
	for r, v := range sums {
		a := &s.st[gids[r]]
		a.sum += v
		a.n += counts[r]
	}
}

func (s *sumFloatState) truncate(n int) { s.st = s.st[:min(n, len(s.st))] }

func (s *sumFloatState) partialTypes() []arrow.DataType {
	return []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64}
}

func (s *sumFloatState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	sums := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
	counts := make([]int64, to-from)
	for i, a := range s.st[from:to] {
		sums.vals[i], counts[i] = a.sum, a.n
	}
	return []arrow.Array{sums.finish(), exportCounts(mem, counts)}, nil
}

func (s *sumFloatState) result(mem memory.Allocator, f Func, name string, from, to int) (arrow.Array, error) {
	out := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
	for i, a := range s.st[from:to] {
		switch {
		case a.n == 0:
			out.setNull(i)
		case f == Avg:
			out.vals[i] = a.sum / float64(a.n)
		default:
			out.vals[i] = a.sum
		}
	}
	return out.finish(), nil
}

func (s *sumFloatState) release() { s.st = drop(s.acct, s.st) }
