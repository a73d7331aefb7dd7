package agg

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// minMaxState is min and max over fixed-width types. Each group starts at
// the top (min) or bottom (max) of the order, so the loop is one compare
// and a store; seen says whether any value came (NULL otherwise). Floats
// order NaN above everything, as DuckDB and PostgreSQL do. The partial
// state is the result column itself.
type minMaxState[T arrow.FixedWidthType] struct {
	acct *account
	dt   arrow.DataType
	init T
	fold func(st []minMax[T], gids []uint32, vals []T, rows []uint32)
	st   []minMax[T]
	conv []uint8 // booleans as bytes
}

type minMax[T any] struct {
	v    T
	seen bool
}

func newMinMax(a *account, dt arrow.DataType, isMin bool) state {
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64: // a timestamp's and a time's values are int64
		if isMin {
			return &minMaxState[int64]{acct: a, dt: dt, init: math.MaxInt64, fold: foldMin[int64]}
		}
		return &minMaxState[int64]{acct: a, dt: dt, init: math.MinInt64, fold: foldMax[int64]}
	case arrow.DATE32:
		if isMin {
			return &minMaxState[arrow.Date32]{acct: a, dt: dt, init: math.MaxInt32, fold: foldMin[arrow.Date32]}
		}
		return &minMaxState[arrow.Date32]{acct: a, dt: dt, init: math.MinInt32, fold: foldMax[arrow.Date32]}
	case arrow.BOOL:
		if isMin {
			return &minMaxState[uint8]{acct: a, dt: dt, init: 1, fold: foldMin[uint8]}
		}
		return &minMaxState[uint8]{acct: a, dt: dt, init: 0, fold: foldMax[uint8]}
	case arrow.FLOAT64:
		if isMin {
			return &minMaxState[float64]{acct: a, dt: dt, init: math.NaN(), fold: foldMinFloat}
		}
		return &minMaxState[float64]{acct: a, dt: dt, init: math.Inf(-1), fold: foldMaxFloat}
	case arrow.DECIMAL128:
		if isMin {
			return &minMaxState[decimal128.Num]{acct: a, dt: dt, init: decimal128.New(math.MaxInt64, math.MaxUint64), fold: foldMinDecimal}
		}
		return &minMaxState[decimal128.Num]{acct: a, dt: dt, init: decimal128.New(math.MinInt64, 0), fold: foldMaxDecimal}
	case arrow.STRING, arrow.BINARY:
		return &minMaxString{acct: a, dt: dt, isMin: isMin}
	}
	panic("agg: no min/max for " + dt.String()) // checked by ResultType
}

type ordered interface{ ~int64 | ~int32 | ~uint8 }

func foldMin[T ordered](st []minMax[T], gids []uint32, vals []T, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; v < a.v {
			a.v = v
		}
		a.seen = true
	}
}

func foldMax[T ordered](st []minMax[T], gids []uint32, vals []T, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; v > a.v {
			a.v = v
		}
		a.seen = true
	}
}

// foldMinFloat starts from NaN, the top: any number replaces it.
func foldMinFloat(st []minMax[float64], gids []uint32, vals []float64, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; v < a.v || a.v != a.v {
			a.v = v
		}
		a.seen = true
	}
}

// foldMaxFloat starts from -Inf; a NaN replaces anything and stays.
func foldMaxFloat(st []minMax[float64], gids []uint32, vals []float64, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; v > a.v || v != v {
			a.v = v
		}
		a.seen = true
	}
}

func foldMinDecimal(st []minMax[decimal128.Num], gids []uint32, vals []decimal128.Num, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; v.Less(a.v) {
			a.v = v
		}
		a.seen = true
	}
}

func foldMaxDecimal(st []minMax[decimal128.Num], gids []uint32, vals []decimal128.Num, rows []uint32) {
	for _, r := range rows {
		a := &st[gids[r]]
		if v := vals[r]; a.v.Less(v) {
			a.v = v
		}
		a.seen = true
	}
}

func (s *minMaxState[T]) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, minMax[T]{v: s.init})
	return err
}

// prepare converts boolean input to bytes (the only allocation).
func (s *minMaxState[T]) prepare(_ []uint32, in *input) error {
	if a, ok := in.arr.(*array.Boolean); ok {
		conv, err := scratch(s.acct, s.conv, a.Len())
		if err != nil {
			return err
		}
		s.conv = conv
		unpackBools(conv, a)
	}
	return nil
}

func (s *minMaxState[T]) prepareMerge(gids []uint32, ins []input) error {
	return s.prepare(gids, &ins[0])
}

// values returns the input's values as T (booleans as prepared).
func (s *minMaxState[T]) values(arr arrow.Array) []T {
	switch a := arr.(type) {
	case *array.Int64:
		return any(a.Int64Values()).([]T)
	case *array.Timestamp, *array.Time64:
		return any(arrow.GetValues[int64](arr.Data(), 1)).([]T)
	case *array.Date32:
		return any(a.Date32Values()).([]T)
	case *array.Float64:
		return any(a.Float64Values()).([]T)
	case *array.Decimal128:
		return any(a.Values()).([]T)
	case *array.Boolean:
		return any(s.conv[:a.Len()]).([]T)
	}
	panic("agg: min/max cannot read " + arr.DataType().String())
}

func (s *minMaxState[T]) update(gids []uint32, in *input) {
	s.fold(s.st, gids, s.values(in.arr), in.rows)
}

func (s *minMaxState[T]) merge(gids []uint32, ins []input) { s.update(gids, &ins[0]) }

func (s *minMaxState[T]) truncate(n int) { s.st = s.st[:min(n, len(s.st))] }

func (s *minMaxState[T]) partialTypes() []arrow.DataType { return []arrow.DataType{s.dt} }

func (s *minMaxState[T]) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	a, err := s.result(mem, 0, "", from, to)
	return []arrow.Array{a}, err
}

func (s *minMaxState[T]) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	out := newFixedOut[T](mem, s.dt, to-from)
	for i, a := range s.st[from:to] {
		if a.seen {
			out.vals[i] = a.v
		} else {
			out.setNull(i)
		}
	}
	return out.finish(), nil
}

func (s *minMaxState[T]) release() {
	s.st = drop(s.acct, s.st)
	s.conv = drop(s.acct, s.conv)
}
