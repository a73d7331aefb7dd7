package agg

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sumDecState is sum(decimal(p,s)) → decimal(38,s) and avg(decimal) →
// float64, summing in 192 bits.
type sumDecState struct {
	noPrepare
	acct  *account
	scale int32
	st    []int192
}

type int192 struct {
	w0, w1 uint64
	w2     int64
	n      int64
}

func (a *int192) num() decimal256.Num {
	return decimal256.New(uint64(a.w2>>63), uint64(a.w2), a.w1, a.w0)
}

func (s *sumDecState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, int192{})
	return err
}

func (s *sumDecState) update(gids []uint32, in *input) {
	vals, st := in.arr.(*array.Decimal128).Values(), s.st
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

// add adds v; a 128-bit value sign-extends into the top word.
func (a *int192) add(v decimal128.Num) {
	hi := v.HighBits()
	w0, c := bits.Add64(a.w0, v.LowBits(), 0)
	w1, c := bits.Add64(a.w1, uint64(hi), c)
	a.w0, a.w1, a.w2, a.n = w0, w1, a.w2+hi>>63+int64(c), a.n+1
}

func (s *sumDecState) merge(gids []uint32, ins []input) {
	sums, counts := ins[0].arr.(*array.Decimal256).Values(), ins[1].arr.(*array.Int64).Int64Values()
	for r, v := range sums {
		w := v.Array()
		a := &s.st[gids[r]]
		w0, c := bits.Add64(a.w0, w[0], 0)
		w1, c := bits.Add64(a.w1, w[1], c)
		a.w0, a.w1, a.w2, a.n = w0, w1, a.w2+int64(w[2])+int64(c), a.n+counts[r]
	}
}

func (s *sumDecState) truncate(n int) { s.st = s.st[:min(n, len(s.st))] }

func (s *sumDecState) partialTypes() []arrow.DataType {
	return []arrow.DataType{&arrow.Decimal256Type{Precision: 76, Scale: s.scale}, arrow.PrimitiveTypes.Int64}
}

func (s *sumDecState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	sums := newFixedOut[decimal256.Num](mem, s.partialTypes()[0], to-from)
	counts := make([]int64, to-from)
	for i := range s.st[from:to] {
		a := &s.st[from+i]
		sums.vals[i], counts[i] = a.num(), a.n
	}
	return []arrow.Array{sums.finish(), exportCounts(mem, counts)}, nil
}

func (s *sumDecState) result(mem memory.Allocator, f Func, name string, from, to int) (arrow.Array, error) {
	if f == Avg {
		out := newFixedOut[float64](mem, arrow.PrimitiveTypes.Float64, to-from)
		for i := range s.st[from:to] {
			a := &s.st[from+i]
			if a.n == 0 {
				out.setNull(i)
				continue
			}
			out.vals[i] = a.num().ToFloat64(s.scale) / float64(a.n)
		}
		return out.finish(), nil
	}
	out := newFixedOut[decimal128.Num](mem, &arrow.Decimal128Type{Precision: 38, Scale: s.scale}, to-from)
	for i := range s.st[from:to] {
		a := &s.st[from+i]
		if a.n == 0 {
			out.setNull(i)
			continue
		}
		v := decimal128.New(int64(a.w1), a.w0)
		if a.w2 != int64(a.w1)>>63 || !v.FitsInPrecision(38) {
			out.finish().Release()
			return nil, fmt.Errorf("%w: %s of group %d is %s, out of range for decimal(38,%d)",
				ErrOverflow, name, from+i, a.num().ToString(s.scale), s.scale)
		}
		out.vals[i] = v
	}
	return out.finish(), nil
}

func (s *sumDecState) release() { s.st = drop(s.acct, s.st) }
