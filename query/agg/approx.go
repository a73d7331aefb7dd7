package agg

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/hll"
)

// approx_count_distinct(x) estimates the distinct non-NULL values of a
// group with a HyperLogLog sketch per group (package hll: 4096 one-byte
// registers, a standard error of 1.04/√4096 ≈ 1.6%, small counts near
// exact), as DuckDB does with its own sketch: the two engines' estimates
// differ, both within a few percent. Values hash as count(DISTINCT)
// compares them: -0.0 is 0.0, every NaN one NaN, strings by bytes. Each
// group is charged its 4 KiB when it is made (an upper bound: a sketch
// allocates on its first value). The partial state is the sketch's bytes
// (hll's AppendBinary, in a utf8 column that holds them as bytes), NULL
// when empty; merging is the sketches' union, so the aggregate spills.
type approxState struct {
	noPrepare
	acct *account
	st   []hll.Sketch
}

const sketchBytes = 1 << hll.Precision

func (s *approxState) resize(n int) error {
	old := len(s.st)
	if n <= old {
		return nil
	}
	if err := s.acct.charge(int64(n-old) * sketchBytes); err != nil {
		return err
	}
	var err error
	if s.st, err = resizeStates(s.acct, s.st, n, hll.Sketch{}); err != nil {
		s.acct.credit(int64(n-old) * sketchBytes)
	}
	return err
}

// hashOf returns the hash of row r of a.
func hashOf(a arrow.Array) func(r int) uint64 {
	switch a := a.(type) {
	case *array.Float64:
		v := a.Float64Values()
		return func(r int) uint64 { return hll.Mix(canonicalFloat(v[r])) }
	case *array.Decimal128:
		v := a.Values()
		return func(r int) uint64 { return hll.Mix(v[r].LowBits() ^ hll.Mix(uint64(v[r].HighBits()))) }
	case *array.String:
		return func(r int) uint64 { return xxh3.HashString(a.Value(r)) }
	}
	at := readerOf(a) // integers, dates, times, timestamps, booleans
	return func(r int) uint64 { return hll.Mix(uint64(at(r).i)) }
}

func (s *approxState) update(gids []uint32, in *input) {
	h := hashOf(in.arr)
	for _, r := range in.rows {
		s.st[gids[r]].Insert(h(int(r)))
	}
}

func (s *approxState) truncate(n int) {
	if n < len(s.st) {
		s.acct.credit(int64(len(s.st)-n) * sketchBytes)
		clear(s.st[n:])
		s.st = s.st[:n]
	}
}

func (s *approxState) partialTypes() []arrow.DataType {
	return []arrow.DataType{arrow.BinaryTypes.String}
}

func (s *approxState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	var buf []byte
	for i := from; i < to; i++ {
		if s.st[i].Empty() {
			b.AppendNull()
			continue
		}
		buf = s.st[i].AppendBinary(buf[:0])
		b.BinaryBuilder.Append(buf)
	}
	return []arrow.Array{b.NewArray()}, nil
}

func (s *approxState) prepareMerge(gids []uint32, ins []input) error {
	str := ins[0].arr.(*array.String)
	for _, r := range ins[0].rows {
		if _, err := hll.Parse([]byte(str.Value(int(r)))); err != nil {
			return err // a damaged spill file is caught by its checksum first
		}
	}
	return nil
}

func (s *approxState) merge(gids []uint32, ins []input) {
	str := ins[0].arr.(*array.String)
	for _, r := range ins[0].rows {
		o, _ := hll.Parse([]byte(str.Value(int(r)))) // checked by prepareMerge
		s.st[gids[r]].Merge(o)
	}
}

func (s *approxState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	out := newFixedOut[int64](mem, arrow.PrimitiveTypes.Int64, to-from)
	for i := range s.st[from:to] {
		out.vals[i] = int64(min(s.st[from+i].Estimate(), math.MaxInt64))
	}
	return out.finish(), nil
}

func (s *approxState) release() {
	s.acct.credit(int64(len(s.st)) * sketchBytes)
	s.st = drop(s.acct, s.st)
}
